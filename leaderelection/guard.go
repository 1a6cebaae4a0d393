package leaderelection

import (
	"context"
	"errors"
	"net/http"

	"github.com/kubego/kubego/clock"
)

// ErrTermOver is wrapped by the error CheckTerm and GuardTransport return
// for work of a term that is over by the elector's clock.
var ErrTermOver = errors.New("leaderelection: the leadership term of this work is over")

// termKey is the context key of the term a context belongs to.
type termKey struct{}

// termWindow is what a term's context carries: when the term ends, read
// at the moment of the check.
type termWindow struct {
	t     *term
	clock clock.Clock
}

// over reports whether the term ended or its end has passed, even if its
// timer has not fired yet (a process resumed after being stopped sees its
// clock jump before any timer runs).
func (w termWindow) over() bool {
	w.t.mu.Lock()
	ended, end := w.t.ended, w.t.end
	w.t.mu.Unlock()
	return ended || !w.clock.Now().Before(end)
}

// CheckTerm returns an error wrapping ErrTermOver when ctx is (derived
// from) the context OnStartedLeading was given and that term is over: it
// was not renewed in time, or was lost. It reads the clock itself, so it
// holds even in the moments after a frozen process resumes, before the
// term's timer has cancelled the context. A context of no term passes.
func CheckTerm(ctx context.Context) error {
	w, ok := ctx.Value(termKey{}).(termWindow)
	if !ok || !w.over() {
		return nil
	}
	return ErrTermOver
}

// GuardTransport wraps rt so that a request made with the context of a
// term that is over fails with an error wrapping ErrTermOver, before any
// byte is sent. Requests of other contexts pass unchanged. It narrows the
// window in which a deposed leader can still write to the requests
// already sent when its term ended; it is not a fencing token.
func GuardTransport(rt http.RoundTripper) http.RoundTripper { return guarded{next: rt} }

type guarded struct{ next http.RoundTripper }

func (g guarded) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := CheckTerm(req.Context()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	return g.next.RoundTrip(req)
}
