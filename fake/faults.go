package fake

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Match selects requests for fault injection. Empty fields match anything.
type Match struct {
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete or deletecollection.
	Verb string
	// Group and Resource name the resource, e.g. "apps" and "deployments";
	// Group is compared only when Resource is set.
	Group    string
	Resource string
	// Subresource is "status" or "scale"; empty matches any, including none.
	Subresource string
	Namespace   string
	Name        string
}

func (m Match) matches(req *request) bool {
	return (m.Verb == "" || m.Verb == req.verb) &&
		(m.Resource == "" || (m.Resource == req.res.gvr.Resource && m.Group == req.res.gvr.Group)) &&
		(m.Subresource == "" || m.Subresource == req.sub) &&
		(m.Namespace == "" || m.Namespace == req.namespace) &&
		(m.Name == "" || m.Name == req.name)
}

type failure struct {
	m      Match
	left   int
	status metav1.Status
}

type delay struct {
	id int
	m  Match
	d  time.Duration
}

// faults holds the injected failures and delays. Rules are consulted in the
// order they were added.
type faults struct {
	mu     sync.Mutex
	fails  []*failure
	delays []delay
	nextID int
}

// FailNext makes the next n requests matching m fail with st instead of
// being served. st.Code is the HTTP status (zero means 500); st.Reason and
// st.Message are sent as given. Failures are consumed in order across
// concurrent requests: exactly n matching requests fail.
func (s *Server) FailNext(m Match, n int, st metav1.Status) {
	if n <= 0 {
		return
	}
	if st.Code == 0 {
		st.Code = 500
	}
	st.Status = metav1.StatusFailure
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.fails = append(s.faults.fails, &failure{m: m, left: n, status: st})
}

// Delay adds latency d before serving each request matching m, until the
// returned function is called. A request whose context ends while delayed
// is abandoned. Delays of several matching rules add up.
func (s *Server) Delay(m Match, d time.Duration) (remove func()) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.nextID++
	id := s.faults.nextID
	s.faults.delays = append(s.faults.delays, delay{id: id, m: m, d: d})
	return func() {
		s.faults.mu.Lock()
		defer s.faults.mu.Unlock()
		for i, dl := range s.faults.delays {
			if dl.id == id {
				s.faults.delays = append(s.faults.delays[:i], s.faults.delays[i+1:]...)
				return
			}
		}
	}
}

// apply waits out the delays matching req and returns the injected failure,
// if one matches.
func (f *faults) apply(ctx context.Context, req *request) error {
	f.mu.Lock()
	var wait time.Duration
	for _, dl := range f.delays {
		if dl.m.matches(req) {
			wait += dl.d
		}
	}
	var fail error
	for i, fl := range f.fails {
		if fl.m.matches(req) {
			fl.left--
			if fl.left == 0 {
				f.fails = append(f.fails[:i], f.fails[i+1:]...)
			}
			fail = &apierrors.StatusError{ErrStatus: fl.status}
			break
		}
	}
	f.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return apierrors.NewTimeoutError("request abandoned while delayed", 0)
		case <-t.C:
		}
	}
	return fail
}
