package informer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/backoff"
)

// call is one recorded ListerWatcher call.
type call struct {
	verb string // "list" or "watch"
	opts metav1.ListOptions
	at   time.Time
}

func (c call) String() string {
	s := c.verb + " rv=" + c.opts.ResourceVersion
	if c.opts.ResourceVersionMatch != "" {
		s += " match=" + string(c.opts.ResourceVersionMatch)
	}
	if c.opts.SendInitialEvents != nil && *c.opts.SendInitialEvents {
		s += " stream"
	}
	if c.opts.Continue != "" {
		s += " continue=" + c.opts.Continue
	}
	return s
}

type listFn func(opts metav1.ListOptions) (ListResult[*corev1.ConfigMap], error)
type watchFn func(opts metav1.ListOptions) (watch.Interface, error)

// fakeLW answers calls from scripts, in order; once a script is exhausted
// the call blocks until ctx ends. It records every call.
type fakeLW struct {
	t       testing.TB
	mu      sync.Mutex
	lists   []listFn
	watches []watchFn
	calls   []call
}

func (f *fakeLW) onList(fns ...listFn) *fakeLW {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, fns...)
	return f
}

func (f *fakeLW) onWatch(fns ...watchFn) *fakeLW {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watches = append(f.watches, fns...)
	return f
}

func (f *fakeLW) List(ctx context.Context, opts metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{"list", opts, time.Now()})
	var fn listFn
	if len(f.lists) > 0 {
		fn, f.lists = f.lists[0], f.lists[1:]
	}
	f.mu.Unlock()
	if fn == nil {
		<-ctx.Done()
		return ListResult[*corev1.ConfigMap]{}, ctx.Err()
	}
	return fn(opts)
}

func (f *fakeLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{"watch", opts, time.Now()})
	var fn watchFn
	if len(f.watches) > 0 {
		fn, f.watches = f.watches[0], f.watches[1:]
	}
	f.mu.Unlock()
	if fn == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return fn(opts)
}

func (f *fakeLW) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = c.String()
	}
	return out
}

func (f *fakeLW) callList() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func listOf(rv string, objs ...*corev1.ConfigMap) listFn {
	return func(metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
		return ListResult[*corev1.ConfigMap]{Items: objs, ResourceVersion: rv}, nil
	}
}

func listErr(err error) listFn {
	return func(metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
		return ListResult[*corev1.ConfigMap]{}, err
	}
}

// watchWith returns a watch that first delivers evs, then stays open
// (closeAfter false) or closes.
func watchWith(closeAfter bool, evs ...watch.Event) watchFn {
	return func(metav1.ListOptions) (watch.Interface, error) {
		w := watch.NewFakeWithChanSize(len(evs)+1, false)
		for _, e := range evs {
			w.Action(e.Type, e.Object)
		}
		if closeAfter {
			w.Stop()
		}
		return w, nil
	}
}

// watchCh returns a watch fed by the test through the returned FakeWatcher.
func watchCh(w *watch.FakeWatcher) watchFn {
	return func(metav1.ListOptions) (watch.Interface, error) { return w, nil }
}

func watchErr2(err error) watchFn {
	return func(metav1.ListOptions) (watch.Interface, error) { return nil, err }
}

func cm(ns, name, rv string, kv ...string) *corev1.ConfigMap {
	c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	for i := 0; i+1 < len(kv); i += 2 {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[kv[i]] = kv[i+1]
	}
	return c
}

func ev(t watch.EventType, o *corev1.ConfigMap) watch.Event { return watch.Event{Type: t, Object: o} }

func bookmark(rv string, end bool) watch.Event {
	o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if end {
		o.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: o}
}

func errEvent(err *apierrors.StatusError) watch.Event {
	st := err.Status()
	return watch.Event{Type: watch.Error, Object: &st}
}

var gr = schema.GroupResource{Resource: "configmaps"}

func gone() *apierrors.StatusError { return apierrors.NewResourceExpired("too old resource version") }

// recorder is a Handler that logs events as strings.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *recorder) OnAdd(o *corev1.ConfigMap, initial bool) {
	s := fmt.Sprintf("add %s@%s", KeyOf(o), o.ResourceVersion)
	if initial {
		s += " initial"
	}
	r.add(s)
}

func (r *recorder) OnUpdate(old, o *corev1.ConfigMap) {
	r.add(fmt.Sprintf("update %s@%s->%s", KeyOf(o), old.ResourceVersion, o.ResourceVersion))
}

func (r *recorder) OnDelete(o *corev1.ConfigMap, unknown bool) {
	s := fmt.Sprintf("delete %s@%s", KeyOf(o), o.ResourceVersion)
	if unknown {
		s += " final-state-unknown"
	}
	r.add(s)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// sorted returns the events sorted, for batches whose order is unspecified.
func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func eq(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %s\n want %s", what, strings.Join(got, " | "), strings.Join(want, " | "))
	}
}

// start runs inf in the background; the returned func cancels it and waits,
// returning Run's error.
func start[T Object](t testing.TB, inf *Informer[T]) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- inf.Run(ctx) }()
	return func() error {
		cancel()
		return <-errc
	}
}

func noStream() ReflectorOptions {
	return ReflectorOptions{DisableStreaming: true, Backoff: backoff.Backoff{Jitter: -1}}
}

func schema0() schema.GroupKind { return schema.GroupKind{Kind: "ConfigMap"} }

// mustAcquire is Acquire, AcquireResource or AcquireMetadata in tests of
// factories that cannot refuse a request (no OneInformerPerType).
func mustAcquire[T Object](inf *Informer[T], err error) *Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}
