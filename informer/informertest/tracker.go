// Package informertest provides an in-memory API collection that serves as
// an informer.ListerWatcher, for unit tests of informers and controllers
// without HTTP. A [Tracker] keeps objects with resourceVersions, paginates
// lists, serves watches from a resourceVersion (replaying its history),
// streaming initial lists, bookmarks, and lets tests break watches and
// expire history to provoke resumes and 410 relists.
package informertest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// Options configures a [Tracker]. The zero value is valid.
type Options struct {
	// History is how many past events a watch can resume from; older
	// resourceVersions get 410 Expired. 0 means 1000.
	History int
	// WatchBuffer is the per-watch event buffer; a watch whose client falls
	// further behind is closed (as a server drops slow watchers). 0 means
	// 10000.
	WatchBuffer int
	// NoStreaming makes watches with sendInitialEvents fail with 400
	// BadRequest, like a server without the WatchList feature.
	NoStreaming bool
	// Resource names the collection in errors; defaults to "objects".
	Resource string
}

type event[T informer.Object] struct {
	rv  int64
	typ watch.EventType
	obj T
}

// Tracker is an in-memory collection of T. It implements
// informer.ListerWatcher[T] over all namespaces; use Namespace for one. All
// methods are safe for concurrent use. Objects passed in are deep-copied;
// objects handed out are fresh copies.
type Tracker[T informer.Object] struct {
	opts Options

	mu       sync.Mutex
	rv       int64
	objects  map[informer.Key]T
	history  []event[T]
	watchers map[*watcher[T]]struct{}
	pages    map[string][]T
	nextPage int
	failList []error
	failWat  []error
}

// New returns an empty tracker.
func New[T informer.Object](opts Options) *Tracker[T] {
	if opts.History <= 0 {
		opts.History = 1000
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = 10000
	}
	if opts.Resource == "" {
		opts.Resource = "objects"
	}
	return &Tracker[T]{opts: opts, objects: map[informer.Key]T{}, watchers: map[*watcher[T]]struct{}{}, pages: map[string][]T{}}
}

func clone[T informer.Object](o T) T { return o.DeepCopyObject().(T) }

func (t *Tracker[T]) gr() schema.GroupResource {
	return schema.GroupResource{Resource: t.opts.Resource}
}

// record runs with t.mu held.
func (t *Tracker[T]) record(typ watch.EventType, obj T) {
	t.history = append(t.history, event[T]{rv: t.rv, typ: typ, obj: obj})
	if len(t.history) > t.opts.History {
		t.history = slices.Delete(t.history, 0, len(t.history)-t.opts.History)
	}
	for w := range t.watchers {
		w.send(watch.Event{Type: typ, Object: clone(obj)})
	}
}

// Create stores a new object and returns its resourceVersion. It fails
// with AlreadyExists if the key is taken.
func (t *Tracker[T]) Create(obj T) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := informer.KeyOf(obj)
	if _, ok := t.objects[k]; ok {
		return "", apierrors.NewAlreadyExists(t.gr(), k.String())
	}
	t.rv++
	o := clone(obj)
	o.SetResourceVersion(strconv.FormatInt(t.rv, 10))
	t.objects[k] = o
	t.record(watch.Added, o)
	return o.GetResourceVersion(), nil
}

// Update replaces an existing object and returns its new resourceVersion.
func (t *Tracker[T]) Update(obj T) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := informer.KeyOf(obj)
	if _, ok := t.objects[k]; !ok {
		return "", apierrors.NewNotFound(t.gr(), k.String())
	}
	t.rv++
	o := clone(obj)
	o.SetResourceVersion(strconv.FormatInt(t.rv, 10))
	t.objects[k] = o
	t.record(watch.Modified, o)
	return o.GetResourceVersion(), nil
}

// Delete removes an object.
func (t *Tracker[T]) Delete(k informer.Key) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.objects[k]
	if !ok {
		return apierrors.NewNotFound(t.gr(), k.String())
	}
	delete(t.objects, k)
	t.rv++
	o = clone(o)
	o.SetResourceVersion(strconv.FormatInt(t.rv, 10))
	t.record(watch.Deleted, o)
	return nil
}

// Get returns a copy of the object under k.
func (t *Tracker[T]) Get(k informer.Key) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.objects[k]
	if ok {
		o = clone(o)
	}
	return o, ok
}

// Snapshot returns key → resourceVersion of every object.
func (t *Tracker[T]) Snapshot() map[informer.Key]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[informer.Key]string, len(t.objects))
	for k, o := range t.objects {
		out[k] = o.GetResourceVersion()
	}
	return out
}

// ResourceVersion returns the current resourceVersion.
func (t *Tracker[T]) ResourceVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strconv.FormatInt(t.rv, 10)
}

// BreakWatches closes every open watch (the client should resume).
func (t *Tracker[T]) BreakWatches() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for w := range t.watchers {
		w.close()
	}
	clear(t.watchers)
}

// Compact forgets the history: watches from an older resourceVersion get
// 410 Expired, open watches get an Expired error event and close.
func (t *Tracker[T]) Compact() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.history = nil
	st := apierrors.NewResourceExpired("too old resource version").Status()
	for w := range t.watchers {
		w.send(watch.Event{Type: watch.Error, Object: &st})
		w.close()
	}
	clear(t.watchers)
}

// Bookmark sends a bookmark at the current resourceVersion to every watch.
func (t *Tracker[T]) Bookmark() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for w := range t.watchers {
		if w.bookmarks {
			w.send(watch.Event{Type: watch.Bookmark, Object: t.bookmarkObj(false)})
		}
	}
}

// FailNextList makes the next List calls fail with errs, in order.
func (t *Tracker[T]) FailNextList(errs ...error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failList = append(t.failList, errs...)
}

// FailNextWatch makes the next Watch calls fail with errs, in order.
func (t *Tracker[T]) FailNextWatch(errs ...error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failWat = append(t.failWat, errs...)
}

// bookmarkObj runs with t.mu held: an empty T carrying only the current
// resourceVersion (and the initial-events-end annotation when end).
func (t *Tracker[T]) bookmarkObj(end bool) T {
	b := newT[T]()
	b.SetResourceVersion(strconv.FormatInt(t.rv, 10))
	if end {
		b.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return b
}

// Namespace returns a ListerWatcher limited to namespace ns.
func (t *Tracker[T]) Namespace(ns string) informer.ListerWatcher[T] { return scoped[T]{t: t, ns: ns} }

// List implements informer.ListerWatcher over all namespaces.
func (t *Tracker[T]) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[T], error) {
	return t.list(ctx, "", opts)
}

// Watch implements informer.ListerWatcher over all namespaces.
func (t *Tracker[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return t.watch(ctx, "", opts)
}

type scoped[T informer.Object] struct {
	t  *Tracker[T]
	ns string
}

func (s scoped[T]) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[T], error) {
	return s.t.list(ctx, s.ns, opts)
}

func (s scoped[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.t.watch(ctx, s.ns, opts)
}

// Namespace is the namespace listed and watched (see informer.Namespaced).
func (s scoped[T]) Namespace() string { return s.ns }

func matcher(ns string, opts metav1.ListOptions) (func(informer.Object) bool, error) {
	sel := labels.Everything()
	if opts.LabelSelector != "" {
		s, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		sel = s
	}
	return func(o informer.Object) bool {
		return (ns == "" || o.GetNamespace() == ns) && sel.Matches(labels.Set(o.GetLabels()))
	}, nil
}

func (t *Tracker[T]) list(ctx context.Context, ns string, opts metav1.ListOptions) (informer.ListResult[T], error) {
	if err := ctx.Err(); err != nil {
		return informer.ListResult[T]{}, err
	}
	match, err := matcher(ns, opts)
	if err != nil {
		return informer.ListResult[T]{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failList) > 0 {
		err := t.failList[0]
		t.failList = t.failList[1:]
		return informer.ListResult[T]{}, err
	}
	var items []T
	var rv string
	if opts.Continue != "" {
		id, rest, _ := strings.Cut(opts.Continue, "@")
		p, ok := t.pages[id]
		if !ok {
			return informer.ListResult[T]{}, apierrors.NewResourceExpired("continue token expired")
		}
		items, rv = p, rest
		delete(t.pages, id)
	} else {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			want, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
			if err != nil {
				return informer.ListResult[T]{}, apierrors.NewBadRequest("invalid resourceVersion")
			}
			if want > t.rv {
				return informer.ListResult[T]{}, tooLarge()
			}
		}
		keys := make([]informer.Key, 0, len(t.objects))
		for k, o := range t.objects {
			if match(o) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b informer.Key) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			items = append(items, clone(t.objects[k]))
		}
		rv = strconv.FormatInt(t.rv, 10)
	}
	res := informer.ListResult[T]{ResourceVersion: rv}
	if opts.Limit > 0 && int64(len(items)) > opts.Limit {
		t.nextPage++
		id := strconv.Itoa(t.nextPage)
		t.pages[id] = items[opts.Limit:]
		items = items[:opts.Limit]
		res.Continue = id + "@" + rv
	}
	res.Items = items
	return res, nil
}

func tooLarge() error {
	err := apierrors.NewTimeoutError("Too large resource version", 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

func (t *Tracker[T]) watch(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	match, err := matcher(ns, opts)
	if err != nil {
		return nil, err
	}
	streaming := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failWat) > 0 {
		err := t.failWat[0]
		t.failWat = t.failWat[1:]
		return nil, err
	}
	if streaming && t.opts.NoStreaming {
		return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
	}
	w := newWatcher[T](ctx, t, match, opts.AllowWatchBookmarks, t.opts.WatchBuffer)
	switch {
	case streaming || opts.ResourceVersion == "" || opts.ResourceVersion == "0":
		keys := make([]informer.Key, 0, len(t.objects))
		for k, o := range t.objects {
			if match(o) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b informer.Key) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			w.send(watch.Event{Type: watch.Added, Object: clone(t.objects[k])})
		}
		if streaming {
			w.send(watch.Event{Type: watch.Bookmark, Object: t.bookmarkObj(true)})
		}
	default:
		from, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid resourceVersion")
		}
		oldest := t.rv + 1
		if len(t.history) > 0 {
			oldest = t.history[0].rv
		}
		if from < oldest-1 {
			st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, oldest-1)).Status()
			w.send(watch.Event{Type: watch.Error, Object: &st})
			w.close()
			return w, nil
		}
		for _, e := range t.history {
			if e.rv > from {
				w.send(watch.Event{Type: e.typ, Object: clone(e.obj)})
			}
		}
	}
	t.watchers[w] = struct{}{}
	return w, nil
}
