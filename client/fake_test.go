package client_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

// seen is one request as the fake server received it.
type seen struct {
	Method, Path, Query, ContentType, Accept string
	Body                                     string
}

// fakeServer answers every request with respond and records it.
type fakeServer struct {
	mu      sync.Mutex
	reqs    []seen
	respond func(w http.ResponseWriter, r *http.Request, body []byte)
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(body)})
	respond := f.respond
	f.mu.Unlock()
	if respond == nil {
		writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}})
		return
	}
	respond(w, r, body)
}

func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func status(code int, reason string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": reason}
}

// newHTTPServer serves f and returns its URL.
func newHTTPServer(t testing.TB, f *fakeServer) string {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// newFake starts a fake server and a client on it.
func newFake(t testing.TB, opts client.Options) (*fakeServer, *client.Client) {
	t.Helper()
	return newFakeScheme(t, opts, nil)
}

// newFakeScheme is newFake with a rest client decoding through sch (nil:
// none named, the built-in kinds known by their Go types).
func newFakeScheme(t testing.TB, opts client.Options, sch *runtime.Scheme) (*fakeServer, *client.Client) {
	t.Helper()
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL, MaxRetries: -1, Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	return f, client.New(rc, opts)
}
