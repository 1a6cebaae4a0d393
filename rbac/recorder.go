package rbac

import (
	"cmp"
	"net/http"
	"slices"
	"sync"

	"github.com/kubego/kubego/rest"
)

// Recorder records the requests of clients built from a rest.Config it
// wrapped ([Recorder.Wrap]): what a program actually asked of the API
// server, for [Check] and [Observed]. The zero value is ready to use; it
// is safe for concurrent use. It keeps each distinct Request once (names
// included), so its memory grows with the distinct objects a program
// touches, not with its requests: meant for a test run.
type Recorder struct {
	mu        sync.Mutex
	seen      map[Request]struct{}
	forbidden map[Request]struct{}
}

// Wrap makes every client built from cfg afterwards record its requests
// in r: it sets cfg.WrapTransport to r's recording transport around the
// wrapper cfg already had (which keeps its place, so a transport that
// wrapper substitutes, as fake.Server.InProcessConfig's does, still
// serves the requests). Each attempt is recorded (retries count once: the
// request is the same), before it is sent, so a request that failed on
// the way is recorded too.
func (r *Recorder) Wrap(cfg *rest.Config) {
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return recordingRT{r: r, next: rt}
	}
}

type recordingRT struct {
	r    *Recorder
	next http.RoundTripper
}

func (t recordingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	attrs := RequestOf(req)
	t.r.add(attrs)
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusForbidden {
		t.r.deny(attrs)
	}
	return resp, err
}

func (r *Recorder) add(req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[Request]struct{}{}
	}
	r.seen[req] = struct{}{}
}

func (r *Recorder) deny(req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.forbidden == nil {
		r.forbidden = map[Request]struct{}{}
	}
	r.forbidden[req] = struct{}{}
}

// Requests returns every distinct request recorded so far, sorted.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return sorted(r.seen)
}

// Forbidden returns the distinct requests the server answered with 403
// Forbidden, sorted: those its authorizer (or an admission step that
// answers 403) refused in the run itself.
func (r *Recorder) Forbidden() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return sorted(r.forbidden)
}

func sorted(set map[Request]struct{}) []Request {
	out := make([]Request, 0, len(set))
	for req := range set {
		out = append(out, req)
	}
	sortRequests(out)
	return out
}

func sortRequests(reqs []Request) {
	slices.SortFunc(reqs, func(a, b Request) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Subresource, b.Subresource),
			cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Verb, b.Verb),
			cmp.Compare(a.Version, b.Version), cmp.Compare(a.Path, b.Path))
	})
}
