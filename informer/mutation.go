package informer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
)

// MutationError reports that an object held by a cache was changed in place
// by someone (cached objects are shared and read-only: DeepCopy before
// changing them). Paths lists the changed fields as JSON paths, e.g.
// "metadata.labels.app"; values are not included, so the error never leaks
// the content of a Secret.
type MutationError struct {
	Informer string
	Key      Key
	Paths    []string // at most maxDiffPaths, sorted
	More     bool     // more fields changed than listed
}

func (e *MutationError) Error() string {
	more := ""
	if e.More {
		more = ", ..."
	}
	return fmt.Sprintf("informer %s: cached object %s was mutated (changed: %s%s); objects from a cache are shared and read-only, DeepCopy them before changing them",
		e.Informer, e.Key, strings.Join(e.Paths, ", "), more)
}

// Unwrap returns [ErrCachedObjectMutated].
func (e *MutationError) Unwrap() error { return ErrCachedObjectMutated }

const maxDiffPaths = 8

type snapshot[T Object] struct{ copy T }

// detector keeps deep copies of stored objects and compares them when asked.
// A nil *detector is valid and does nothing.
type detector[T Object] struct {
	name   string
	report func(*MutationError)
	mu     sync.Mutex
	found  []error
	seen   map[Key]bool // keys already reported, so one mutation is reported once
}

func newDetector[T Object](name string, report func(*MutationError)) *detector[T] {
	return &detector[T]{name: name, report: report, seen: map[Key]bool{}}
}

func (d *detector[T]) snapshot(obj T) *snapshot[T] {
	if d == nil {
		return nil
	}
	c, ok := obj.DeepCopyObject().(T)
	if !ok {
		return nil
	}
	return &snapshot[T]{copy: c}
}

// check compares e's object with its snapshot and reports a difference.
func (d *detector[T]) check(k Key, e entry[T]) {
	if d == nil || e.snap == nil {
		return
	}
	if equality.Semantic.DeepEqual(e.obj, e.snap.copy) {
		return
	}
	d.mu.Lock()
	if d.seen[k] {
		d.mu.Unlock()
		return
	}
	d.seen[k] = true
	paths, more := diffPaths(e.snap.copy, e.obj)
	err := &MutationError{Informer: d.name, Key: k, Paths: paths, More: more}
	d.found = append(d.found, err)
	d.mu.Unlock()
	if d.report != nil {
		d.report(err)
	}
}

func (d *detector[T]) errors() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return errors.Join(d.found...)
}

// diffPaths returns the JSON paths at which a and b differ.
func diffPaths(a, b any) ([]string, bool) {
	var av, bv any
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil || json.Unmarshal(ja, &av) != nil || json.Unmarshal(jb, &bv) != nil {
		return []string{"(object not comparable as JSON)"}, false
	}
	var out []string
	more := false
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		if len(out) >= maxDiffPaths {
			more = true
			return
		}
		xm, xok := x.(map[string]any)
		ym, yok := y.(map[string]any)
		if xok && yok {
			keys := make([]string, 0, len(xm)+len(ym))
			for k := range xm {
				keys = append(keys, k)
			}
			for k := range ym {
				if _, ok := xm[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, xm[k], ym[k])
			}
			return
		}
		xs, xok := x.([]any)
		ys, yok := y.([]any)
		if xok && yok && len(xs) == len(ys) {
			for i := range xs {
				walk(fmt.Sprintf("%s[%d]", path, i), xs[i], ys[i])
			}
			return
		}
		if !reflect.DeepEqual(x, y) {
			if path == "" {
				path = "(root)"
			}
			out = append(out, path)
		}
	}
	walk("", av, bv)
	if len(out) == 0 {
		// Semantically different but equal as JSON (e.g. nil vs empty).
		out = append(out, "(not visible in JSON)")
	}
	return out, more
}
