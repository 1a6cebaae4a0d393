package manager

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Check is a health or readiness check: nil means healthy. It runs on the
// probe's request goroutine and must return quickly.
type Check func(req *http.Request) error

// namedCheck is one registered check.
type namedCheck struct {
	name  string
	check Check
}

// checks is a set of named checks served as one endpoint.
type checks struct {
	mu   sync.Mutex
	list []namedCheck
}

func (c *checks) add(name string, fn Check) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, namedCheck{name, fn})
}

// ServeHTTP answers 200 "ok" when every check passes, else 503 with one
// line per check ("[+]name ok" or "[-]name failed: reason"). With
// ?verbose the lines are listed on success too.
func (c *checks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	list := slices.Clone(c.list)
	c.mu.Unlock()
	var b strings.Builder
	failed := false
	for _, nc := range list {
		if err := nc.check(r); err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: %v\n", nc.name, err)
		} else {
			fmt.Fprintf(&b, "[+]%s ok\n", nc.name)
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch {
	case failed:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, b.String())
		fmt.Fprintln(w, "check failed")
	case r.URL.Query().Has("verbose"):
		fmt.Fprint(w, b.String())
		fmt.Fprintln(w, "ok")
	default:
		fmt.Fprint(w, "ok")
	}
}

// AddHealthzCheck adds a check to /healthz.
func (m *Manager) AddHealthzCheck(name string, c Check) { m.healthz.add(name, c) }

// AddReadyzCheck adds a check to /readyz, which already checks that the
// informers of every controller have synced.
func (m *Manager) AddReadyzCheck(name string, c Check) { m.readyz.add(name, c) }

// HealthHandler serves /healthz and /readyz, for use in a server of one's
// own.
func (m *Manager) HealthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/healthz", &m.healthz)
	mux.Handle("/healthz/", &m.healthz)
	mux.Handle("/readyz", &m.readyz)
	mux.Handle("/readyz/", &m.readyz)
	return mux
}
