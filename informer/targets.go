package informer

import (
	"cmp"
	"slices"
)

// Targets returns the target of every informer the factory was asked for
// or had declared since it was made — by Acquire and its kin, by a
// [Reader] (on a factory with OneInformerPerType, a lazy one before its
// first read too) and by
// [Factory.Declare] — released or not, each once, in a stable order. It is
// what the factory lists and watches: the input of a program's read
// permissions. A typed target's Resource is empty unless its options named
// one (the Backend derives it from the Go type).
func (f *Factory) Targets() []Target {
	f.mu.Lock()
	out := make([]Target, 0, len(f.targets))
	for t := range f.targets {
		out = append(out, t)
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b Target) int {
		return cmp.Or(cmp.Compare(a.String(), b.String()), cmp.Compare(a.Form, b.Form))
	})
	return out
}

// noteLocked records t among the factory's targets. It runs with f.mu
// held.
func (f *Factory) noteLocked(t Target) {
	if f.targets == nil {
		f.targets = map[Target]struct{}{}
	}
	f.targets[t] = struct{}{}
}
