package webhook_test

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/kubego/kubego/webhook"
)

// The webhook server speaks HTTP/2 unless Options.DisableHTTP2 is set.
func TestServerHTTP2(t *testing.T) {
	e := newTLSEnv(t)
	for _, tt := range []struct {
		name    string
		disable bool
		want    string
	}{
		{"default", false, "HTTP/2.0"},
		{"DisableHTTP2", true, "HTTP/1.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, e, webhook.Options{DisableHTTP2: tt.disable})
			srv.Handle("/ok", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			url := serve(t, srv)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: e.pool()}, ForceAttemptHTTP2: true}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequestWithContext(t.Context(), "POST", url+"/ok", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Proto != tt.want {
				t.Errorf("served %s, want %s", resp.Proto, tt.want)
			}
		})
	}
}
