package faults_test

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubego/kubego/rest"
)

// onRead calls first at the start of its first Read.
type onRead struct {
	io.ReadCloser
	first func()
	once  sync.Once
}

func (r *onRead) Read(p []byte) (int, error) {
	r.once.Do(r.first)
	return r.ReadCloser.Read(p)
}

// Hostile 8: a request whose context ends while its body is read fails
// with the context's error, over HTTP/1.1 and HTTP/2, however the transport
// ends the read: never a success with the part of the body that came (or
// none of it). The server sends the headers and a part of the body, then
// waits; the context is cancelled once the headers are in, before the
// body is read or while it is, and then the server ends the body as if it
// were complete.
func TestHostileContextEndsDuringBody(t *testing.T) {
	for _, tt := range []struct {
		name  string
		http2 bool
		gzip  bool
		cut   string // the part of the body sent before waiting
		// during cancels from another goroutine as the body's first Read
		// starts, rather than before it.
		during bool
	}{
		{"HTTP/1.1", false, false, `{"kind":"ConfigMapList","items":[`, false},
		{"HTTP/1.1 nothing sent", false, false, "", false},
		{"HTTP/2", true, false, `{"kind":"ConfigMapList","items":[`, false},
		{"HTTP/2 nothing sent", true, false, "", false},
		{"HTTP/1.1 gzip", false, true, "", false},
		{"HTTP/2 gzip", true, true, "", false},
		{"HTTP/1.1 during the read", false, false, `{"kind":"ConfigMapList","items":[`, true},
		{"HTTP/2 during the read", true, false, `{"kind":"ConfigMapList","items":[`, true},
		{"HTTP/1.1 gzip during the read", false, true, "", true},
		{"HTTP/2 gzip during the read", true, true, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sent := make(chan struct{}, 1)
			// finish ends the body cleanly: the server closes it as the
			// context ends, so the transport may see the body's end
			// before it sees the cancellation.
			// It is made for each run, so that a run never sees the one
			// before's.
			var finish atomic.Pointer[chan struct{}]
			done := make(chan struct{})
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				finished := *finish.Load()
				w.Header().Set("Content-Type", "application/json")
				if tt.gzip {
					w.Header().Set("Content-Encoding", "gzip")
				}
				w.WriteHeader(http.StatusOK)
				w.Write([]byte(tt.cut))
				w.(http.Flusher).Flush()
				sent <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-finished:
				case <-done:
				}
			}))
			// The context ends as soon as the response headers are in:
			// every byte of the body is read after it ended.
			var cancelNow atomic.Pointer[context.CancelFunc]
			cfg := &rest.Config{ContentType: rest.ContentTypeJSON, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(req *http.Request) (*http.Response, error) {
					resp, err := rt.RoundTrip(req)
					if err != nil {
						return resp, err
					}
					<-sent
					cancel, finished := *cancelNow.Load(), *finish.Load()
					if !tt.during {
						cancel()
						return resp, err
					}
					resp.Body = &onRead{ReadCloser: resp.Body, first: func() {
						go func() {
							cancel()
							close(finished)
						}()
					}}
					return resp, err
				})
			}}
			if tt.http2 {
				srv.EnableHTTP2 = true
				srv.StartTLS()
				cfg.TLS.CAData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(done) })
			cfg.Host = srv.URL
			c, err := rest.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			const runs = 200
			for i := range runs {
				ctx, cancel := context.WithCancel(t.Context())
				cancelNow.Store(&cancel)
				finished := make(chan struct{})
				finish.Store(&finished)
				body, err := c.Get().AbsPath("/api/v1/configmaps").DoRaw(ctx)
				cancel()
				select {
				case <-finished:
				default:
				}
				if err == nil {
					t.Fatalf("run %d: success with a body of %d bytes (%q) after the context ended", i, len(body), body)
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("run %d: err = %v, want it to wrap context.Canceled", i, err)
				}
			}
		})
	}
}
