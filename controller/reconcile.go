package controller

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/kubego/kubego/informer"
)

// Request names the object a reconcile is about. It is the queue's key: a
// Request waiting for a worker is queued once, and no two workers of one
// Controller ever hold the same Request at once.
//
// It embeds the object's informer.Key, so r.Namespace ("" for a
// cluster-scoped object), r.Name and r.Key (to look the object up in a
// cache) are the key's. It is a type of its own rather than informer.Key
// so that what identifies a reconcile can grow without changing what
// identifies a cached object: Cluster names the cluster the object lives
// in, for a controller that watches several (Options.MultiCluster); it is
// empty for the host cluster, the one of the factory given to New, and so
// always for a single-cluster controller. Objects of the same key in two
// clusters are two Requests. Build one with Request{Key: informer.KeyOf(obj)}
// or Request{Key: informer.Key{Namespace: ns, Name: name}}, plus
// Cluster: name for another cluster.
type Request struct {
	informer.Key
	// Cluster is the name of the object's cluster; "" is the host cluster.
	Cluster string
}

// String returns the key's "namespace/name" (or "name"), followed by
// "@cluster" when Cluster is set. It is for logs and messages; it is not
// parsed back.
func (r Request) String() string {
	if r.Cluster == "" {
		return r.Key.String()
	}
	return r.Key.String() + "@" + r.Cluster
}

// owned returns r with a key whose strings are copies. An object read from
// a compact cache views the cache's encoded bytes, so a key taken from it
// would keep those bytes (a whole chunk of them) in memory for as long as
// the Request waits in the queue or its backoff is remembered.
func (r Request) owned() Request {
	r.Key.Namespace = strings.Clone(r.Key.Namespace)
	r.Key.Name = strings.Clone(r.Key.Name)
	return r
}

// Result tells the loop what to do after a successful reconcile. The zero
// Result means done: the Request's backoff is reset and it is not seen
// again until an event enqueues it.
type Result struct {
	// RequeueAfter, if positive, reconciles the Request again after that
	// delay (unless an event enqueues it earlier). Its backoff is reset.
	RequeueAfter time.Duration
	// Requeue, when RequeueAfter is zero, reconciles the Request again
	// after the rate limiter's delay, as for an error, but without logging
	// or counting an error: for "not yet, try again soon" without a known
	// delay. Its backoff keeps growing until a reconcile returns neither.
	Requeue bool
}

// Reconciler drives one object towards its desired state. It is the only
// code a controller's author writes.
//
// Reconcile is called by the Controller's workers, concurrently for
// different Requests (up to Options.MaxConcurrentReconciles) and never
// concurrently for the same Request. It should read the object from a
// cache (an informer.Lister), compare, and write the difference through a
// client; objects read from a cache are shared and must not be modified.
//
// Its outcome decides what happens next:
//
//   - nil error and a zero Result: done;
//   - nil error and Result.RequeueAfter > 0: again after that delay;
//   - nil error and Result.Requeue: again after the rate limiter's delay;
//   - an error wrapped by TerminalError: not retried, logged and counted;
//   - any other error: logged, counted, and retried after the rate
//     limiter's delay (per-request exponential backoff, 5ms up to 1000s, and
//     an overall 10 qps bucket by default); the Result is ignored.
//
// A panic in Reconcile is recovered (unless Options.PropagatePanics), and
// treated as an error wrapping *PanicError.
//
// ctx is cancelled when the controller must stop: at the end of the drain
// deadline on shutdown, or at once when leadership is lost.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to the Reconciler interface.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f(ctx, req).
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// ErrTerminal is matched by errors.Is for every error made by TerminalError.
var ErrTerminal = errors.New("terminal error")

// terminalError marks an error that retrying cannot fix.
type terminalError struct{ err error }

func (e *terminalError) Error() string {
	if e.err == nil {
		return ErrTerminal.Error()
	}
	return "terminal error: " + e.err.Error()
}

func (e *terminalError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrTerminal}
	}
	return []error{ErrTerminal, e.err}
}

// TerminalError wraps err so that a Reconciler returning it is not retried:
// the error is logged and counted (reconcile_terminal_errors_total) and the
// Request's backoff is reset. Use it for errors that only a change of the
// object can fix, such as an invalid spec; the next change enqueues the
// Request again. errors.Is(TerminalError(err), ErrTerminal) is true, and
// errors.Is / errors.As see err through it. TerminalError(nil) is a terminal
// error without a cause.
func TerminalError(err error) error {
	return &terminalError{err: err}
}

// PanicError is the error a recovered panic in Reconcile becomes.
type PanicError struct {
	Request Request
	Value   any    // what was passed to panic
	Stack   []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string {
	return "panic in Reconcile(" + e.Request.String() + "): " + panicString(e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
