package podexec

import (
	"bytes"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

// connectProxy is an HTTP proxy that tunnels CONNECT requests and counts
// them.
func connectProxy(t *testing.T) (*url.URL, *atomic.Int32) {
	t.Helper()
	var tunnels atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		upstream, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		tunnels.Add(1)
		w.WriteHeader(http.StatusOK)
		client, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			_ = upstream.Close()
			return
		}
		go func() {
			_, _ = io.Copy(upstream, brw)
			_ = upstream.Close()
		}()
		_, _ = io.Copy(client, upstream)
		_ = client.Close()
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u, &tunnels
}

func TestTheUpgradeUsesTheConfigsProxyTLSAndCredentials(t *testing.T) {
	out := join(channelMsg(chanStdout, "via proxy"), channelMsg(chanError, success), normalClose)
	var auth atomic.Value
	script := scriptedHandler(protocolV5, out)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		script.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	proxyURL, tunnels := connectProxy(t)
	c, err := newClientForTest(srv.URL, ca, proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := Run(t.Context(), c, Options{Namespace: "ns", Pod: "p", Command: []string{"x"}, Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "via proxy" || tunnels.Load() != 1 {
		t.Fatalf("stdout %q, %d tunnels; want the output through one CONNECT tunnel", stdout.String(), tunnels.Load())
	}
	if got := auth.Load(); got != "Bearer secret" {
		t.Fatalf("Authorization %q, want the Config's bearer token", got)
	}
}
