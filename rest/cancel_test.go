package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A body whose read ends cleanly after the request's context ended (a
// transport that reports the cut as the end, an empty gzip stream) is an
// error wrapping the context's, never a success with what came.
func TestBodyReadAfterContextEndedIsAnError(t *testing.T) {
	for _, tt := range []struct {
		name, body, encoding string
	}{
		{"part of a JSON body", `{"kind":"ConfigMapList","items":[`, ""},
		{"empty body", "", ""},
		{"empty gzip body", "", "gzip"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
			var cancel context.CancelFunc
			c, _ := newTestClient(t, srv, func(cfg *Config) {
				cfg.WrapTransport = func(http.RoundTripper) http.RoundTripper {
					return rtFunc(func(req *http.Request) (*http.Response, error) {
						cancel()
						h := http.Header{"Content-Type": {mediaJSON}}
						if tt.encoding != "" {
							h.Set("Content-Encoding", tt.encoding)
						}
						return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(tt.body)), Request: req}, nil
					})
				}
			})
			var ctx context.Context
			ctx, cancel = context.WithCancel(t.Context())
			defer cancel()
			body, err := c.Get().Resource("configmaps").DoRaw(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("DoRaw = %q, %v; want an error wrapping context.Canceled", body, err)
			}
		})
	}
}
