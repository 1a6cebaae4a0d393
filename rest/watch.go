package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/internal/codec/dedup"
)

// WatchStream is a running watch. It implements watch.Interface: events
// arrive in server order on ResultChan, which is closed when the stream
// ends. Err then says why. WatchStream is safe for concurrent use.
type WatchStream struct {
	ch      chan watch.Event
	done    chan struct{}
	parent  context.Context
	ctx     context.Context
	cancel  context.CancelFunc
	body    io.Closer
	stopped atomic.Bool
	once    sync.Once
	// compressed: the server sent the stream gzip-compressed.
	compressed bool

	mu  sync.Mutex
	err error
}

var _ watch.Interface = (*WatchStream)(nil)

// Watch starts a watch (the watch=true parameter is added when absent) and
// returns the stream of its events. newObject makes the object each event is
// decoded into; nil means a type from the scheme for known kinds and
// *unstructured.Unstructured otherwise. The request's Timeout, if any, bounds
// the whole watch; Config.Timeout does not apply. A non-2xx answer is
// returned as an *apierrors.StatusError.
//
// Events of type ERROR carry a *metav1.Status (credentials the request sent
// redacted from its texts); the stream ends after one, with Err returning it
// as an *apierrors.StatusError. A malformed, oversized or unknown event, or
// an ADDED, MODIFIED or DELETED event whose object has no name (a null or
// empty object), ends the stream with a *DecodeError; no partial object is
// ever delivered.
func (r *Request) Watch(ctx context.Context, newObject func() runtime.Object) (*WatchStream, error) {
	if newObject != nil {
		r.Typed(newObject())
	}
	wctx, cancel := withTimeout(ctx, r.timeout)
	resp, err := r.send(wctx, true)
	if err != nil {
		cancel()
		return nil, err
	}
	r.c.handleWarnings(resp.Header, r.secrets)
	if !success(resp.StatusCode) {
		defer cancel()
		return nil, r.errorFromResponse(resp)
	}
	mt := mediaType(resp.Header.Get("Content-Type"), nil)
	compressed := isCompressed(resp)
	body := r.c.responseBody(resp)
	var frames frameReader
	switch {
	case mt == mediaProtobuf:
		frames = newProtoFrames(body, r.c.maxFrame)
	case isJSON(mt):
		frames = newJSONFrames(body, r.c.maxFrame)
	default:
		_ = body.Close()
		cancel()
		return nil, &DecodeError{ContentType: mt, Err: ErrUnsupportedMediaType}
	}
	w := &WatchStream{
		ch:     make(chan watch.Event),
		done:   make(chan struct{}),
		parent: ctx,
		ctx:    wctx,
		cancel: cancel,
		body:   body,

		compressed: compressed,
	}
	eo := eventOptions{newObject: newObject, events: codec.NewEvents(r.hints), secrets: r.secrets}
	go w.run(r.c, mt, frames, eo)
	return w, nil
}

// Hints makes a watch follow h, an informer's watch hints: a protobuf
// ADDED or MODIFIED event for an object h.Known holds at the same
// resourceVersion delivers that object and is not decoded;
// h.DropManagedFields cuts metadata.managedFields from each event's bytes
// (protobuf and JSON) before decoding; h.Share makes the objects share
// their values through the informer's table as they are decoded (protobuf
// events of built-in types by plan, others by a walk after decoding), so
// they must never be modified. h's type is internal: this is how kubego's
// client packages hand an informer's hints to the watch, and no other
// caller has a use for it.
func (r *Request) Hints(h codec.Hints) *Request {
	r.hints = h
	return r
}

// Compressed reports whether the server compresses the stream. Since
// Kubernetes 1.37 (feature WatchListCompression), kube-apiserver gzips a
// watch that starts with its initial events (sendInitialEvents=true) when
// the client accepts gzip. That pays off for the initial events, but the
// server goes on compressing every later event on its own (a gzip member
// per flush), which costs both sides CPU and saves nothing. A caller that
// keeps watching after the initial events may reopen the watch from the
// end bookmark's resourceVersion, which the server sends plain; an
// informer does.
func (w *WatchStream) Compressed() bool { return w.compressed }

// ResultChan returns the channel of events. It is closed when the watch
// ends, after which Err is final.
func (w *WatchStream) ResultChan() <-chan watch.Event { return w.ch }

// Stop ends the watch and releases its connection. It may be called any
// number of times, from any goroutine; it returns after the stream's
// goroutine has finished and ResultChan is closed.
func (w *WatchStream) Stop() {
	w.once.Do(func() {
		w.stopped.Store(true)
		w.cancel()
		_ = w.body.Close()
	})
	<-w.done
}

// Err reports why the stream ended: nil while it runs, after Stop, and after
// a clean end by the server; the context's error when the caller's context
// ended (or the request's Timeout passed); an *apierrors.StatusError after
// an ERROR event; a *DecodeError for a bad event; a transport error
// otherwise.
func (w *WatchStream) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// eventOptions say how a watch decodes its events.
type eventOptions struct {
	newObject func() runtime.Object // nil: by the scheme
	events    *codec.Events         // nil: no hints
	secrets   *secrets              // redacted from ERROR events
}

func (w *WatchStream) run(c *Client, mt string, frames frameReader, eo eventOptions) {
	defer close(w.done)
	defer close(w.ch)
	defer w.cancel()
	defer w.body.Close()
	for {
		typ, raw, err := frames.next()
		if err != nil {
			w.finish(err)
			return
		}
		ev, err := c.decodeEvent(mt, typ, raw, eo)
		if err != nil {
			w.finish(err)
			return
		}
		if ev.Type == watch.Error {
			// Recorded before delivery, so a consumer that stops the
			// watch on seeing the event still finds the cause in Err.
			st := ev.Object.(*metav1.Status)
			eo.secrets.redactStatus(st)
			w.setErr(statusErrorFrom(st, 0))
			select {
			case w.ch <- ev:
			case <-w.ctx.Done():
			}
			return
		}
		select {
		case w.ch <- ev:
		case <-w.ctx.Done():
			w.finish(w.ctx.Err())
			return
		}
	}
}

// finish records why the stream ended.
func (w *WatchStream) finish(err error) {
	switch {
	case w.stopped.Load() || errors.Is(err, io.EOF):
		err = nil
	case w.parent.Err() != nil:
		err = w.parent.Err()
	case w.ctx.Err() != nil:
		err = w.ctx.Err()
	default:
		var de *DecodeError
		if !errors.As(err, &de) && !isStatusError(err) {
			err = fmt.Errorf("rest: watch stream: %w", err)
		}
	}
	w.setErr(err)
}

func (w *WatchStream) setErr(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

func isStatusError(err error) bool {
	_, ok := err.(interface{ Status() metav1.Status })
	return ok
}

// decodeEvent turns one raw event into a watch.Event. It never returns a
// partially decoded object: any failure is an error.
func (c *Client) decodeEvent(mt, typ string, raw []byte, eo eventOptions) (watch.Event, error) {
	et := watch.EventType(typ)
	switch et {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error:
	default:
		return watch.Event{}, &DecodeError{ContentType: mt, Err: fmt.Errorf("%w %s", ErrUnknownEventType, quoteShort(typ))}
	}
	if len(raw) == 0 {
		return watch.Event{}, &DecodeError{ContentType: mt, Err: fmt.Errorf("%s event has no object", et)}
	}
	if et == watch.Error {
		st := c.parseStatus(mt, raw)
		if st == nil {
			return watch.Event{}, &DecodeError{ContentType: mt, Err: errors.New("ERROR event does not hold a Status")}
		}
		return watch.Event{Type: et, Object: st}, nil
	}
	var share *dedup.Table
	if eo.events != nil {
		if mt == mediaProtobuf && (et == watch.Added || et == watch.Modified) {
			if obj, ok := eo.events.Held(raw); ok {
				return watch.Event{Type: et, Object: obj}, nil
			}
		}
		if et != watch.Bookmark {
			// Bookmarks carry nothing worth cutting or sharing, and are
			// never cached. A JSON event is cut in place: the frame
			// reader gave it its own bytes.
			raw = eo.events.Trim(mt == mediaProtobuf, raw)
			share = eo.events.Share()
		}
	}
	obj, err := c.decodeObject(mt, raw, eo.newObject, share)
	if err != nil {
		return watch.Event{}, err
	}
	if et != watch.Bookmark {
		if n, ok := obj.(interface{ GetName() string }); ok && n.GetName() == "" {
			// A null or empty object decodes as an empty one; nothing
			// could key it, and a consumer would take it for real.
			return watch.Event{}, &DecodeError{ContentType: mt, Err: fmt.Errorf("%w: %s event object has no name", ErrInvalidObject, et)}
		}
	}
	return watch.Event{Type: et, Object: obj}, nil
}

// decodeObject decodes one event's object. With a table, the object
// shares its values through it: decoded by plan when its type allows,
// otherwise decoded as usual and then walked by the table.
func (c *Client) decodeObject(mt string, raw []byte, newObject func() runtime.Object, share *dedup.Table) (runtime.Object, error) {
	if newObject != nil {
		into := newObject()
		if isNil(into) {
			return nil, &DecodeError{ContentType: mt, Err: errors.New("newObject returned nil")}
		}
		if share != nil && mt == mediaProtobuf {
			if handled, err := c.decodeProtoShared(raw, into, share); handled {
				if err != nil {
					return nil, err
				}
				return into, nil
			}
		}
		if err := c.decode(raw, mt, into); err != nil {
			return nil, err
		}
		if share != nil {
			share.Object(into)
		}
		return into, nil
	}
	var (
		obj runtime.Object
		err error
	)
	if mt == mediaProtobuf {
		obj, _, err = c.proto.Decode(raw, nil, nil)
	} else {
		obj, _, err = c.json.Decode(raw, nil, nil)
		if runtime.IsNotRegisteredError(err) {
			u := &unstructured.Unstructured{}
			obj, _, err = c.json.Decode(raw, nil, u)
		}
	}
	if err != nil {
		return nil, &DecodeError{ContentType: mt, Err: err}
	}
	if share != nil {
		share.Object(obj)
	}
	return obj, nil
}

// quoteShort quotes s for an error message, cut to 64 bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		b := truncateUTF8([]byte(s), 64)
		if !utf8.Valid(b) {
			b = b[:0]
		}
		return fmt.Sprintf("%q…", b)
	}
	return fmt.Sprintf("%q", s)
}
