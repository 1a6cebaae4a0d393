package manager

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"testing"

	"github.com/kubego/kubego/rest"
)

// The secure metrics server speaks HTTP/2 unless SecureMetrics.DisableHTTP2
// is set.
func TestSecureMetricsHTTP2(t *testing.T) {
	srv := reviewServer(t)
	for _, tt := range []struct {
		name    string
		disable bool
		want    string
	}{
		{"default", false, "HTTP/2.0"},
		{"DisableHTTP2", true, "HTTP/1.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(Options{
				Config:        &rest.Config{Host: srv.URL, ContentType: rest.ContentTypeJSON},
				MetricsAddr:   "127.0.0.1:0",
				SecureMetrics: &SecureMetrics{DisableHTTP2: tt.disable},
				Logger:        slog.New(slog.DiscardHandler),
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- m.Start(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			<-m.Serving()
			tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+m.MetricsAddr().String()+"/metrics", nil)
			req.Header.Set("Authorization", "Bearer good")
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Proto != tt.want || resp.StatusCode != 200 {
				t.Errorf("got %s %d, want %s 200", resp.Proto, resp.StatusCode, tt.want)
			}
		})
	}
}
