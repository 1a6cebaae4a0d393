package informertest

import (
	"context"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// watcher is one open watch. Events are filtered, buffered up to a limit,
// and the channel closes on Stop, on ctx end, or when the client lags.
type watcher[T informer.Object] struct {
	t         *Tracker[T]
	match     func(informer.Object) bool
	bookmarks bool
	ch        chan watch.Event
	once      sync.Once
	mu        sync.Mutex
	closed    bool
}

func newWatcher[T informer.Object](ctx context.Context, t *Tracker[T], match func(informer.Object) bool, bookmarks bool, buf int) *watcher[T] {
	w := &watcher[T]{t: t, match: match, bookmarks: bookmarks, ch: make(chan watch.Event, buf)}
	context.AfterFunc(ctx, w.Stop)
	return w
}

// send runs with t.mu held.
func (w *watcher[T]) send(e watch.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if o, ok := e.Object.(informer.Object); ok && e.Type != watch.Bookmark && e.Type != watch.Error && !w.match(o) {
		return
	}
	select {
	case w.ch <- e:
	default:
		w.closed = true // the client fell behind: drop it
		close(w.ch)
	}
}

func (w *watcher[T]) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
}

func (w *watcher[T]) Stop() {
	w.once.Do(func() {
		w.t.mu.Lock()
		delete(w.t.watchers, w)
		w.t.mu.Unlock()
		w.close()
	})
}

func (w *watcher[T]) ResultChan() <-chan watch.Event { return w.ch }

// newT returns a new zero object of T's element type.
func newT[T informer.Object]() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}
