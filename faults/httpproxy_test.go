package faults_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// l7Rule changes the responses to the requests it matches. The first
// matching rule with uses left applies; at most one rule per request.
type l7Rule struct {
	// Match selects requests; nil matches all.
	Match func(r *http.Request) bool
	// Times is how many requests the rule applies to; 0 means all.
	Times int
	// Respond, if set, answers the request itself instead of forwarding.
	Respond func(w http.ResponseWriter, r *http.Request)
	// Delay waits before forwarding.
	Delay time.Duration
	// Frames, if set, rewrites a JSON watch stream frame by frame: it gets
	// the index and bytes of each event (without the newline) and returns
	// the raw bytes to send instead (nil drops the frame). stop=true ends
	// the response after sending.
	Frames func(i int, frame []byte) (out []byte, stop bool)
	// Body, if set, replaces the copying of a non-watch response body.
	Body func(dst io.Writer, flush func(), src io.Reader)

	used atomic.Int64
}

// l7Proxy terminates TLS with a certificate of its own (trusted by the
// configs it hands out) and forwards to the API server with the admin
// client certificate, asking for JSON so that watch frames are lines it
// can rewrite.
type l7Proxy struct {
	srv      *httptest.Server
	upstream string
	rt       *http.Transport

	mu    sync.Mutex
	rules []*l7Rule

	requests atomic.Int64
	lists    atomic.Int64
	watches  atomic.Int64
}

func newL7Proxy(t *testing.T, cp *testenv.ControlPlane) *l7Proxy {
	t.Helper()
	admin := cp.Config()
	cert, err := tls.X509KeyPair(admin.TLS.CertData, admin.TLS.KeyData)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cp.CAData())
	p := &l7Proxy{upstream: admin.Host, rt: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
		ForceAttemptHTTP2: true,
	}}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.EnableHTTP2 = true
	p.srv.StartTLS()
	t.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.rt.CloseIdleConnections()
	})
	return p
}

// Config returns an unauthenticated config for the proxy (the proxy adds
// the admin identity upstream).
func (p *l7Proxy) Config() *rest.Config {
	return &rest.Config{Host: p.srv.URL, TLS: rest.TLSConfig{
		CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}),
	}}
}

func (p *l7Proxy) add(r *l7Rule) *l7Rule {
	p.mu.Lock()
	p.rules = append(p.rules, r)
	p.mu.Unlock()
	return r
}

func (p *l7Proxy) clear() {
	p.mu.Lock()
	p.rules = nil
	p.mu.Unlock()
}

func (p *l7Proxy) rule(r *http.Request) *l7Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ru := range p.rules {
		if ru.Match != nil && !ru.Match(r) {
			continue
		}
		if ru.Times > 0 && ru.used.Load() >= int64(ru.Times) {
			continue
		}
		ru.used.Add(1)
		return ru
	}
	return nil
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

func isStream(r *http.Request) bool {
	return isWatch(r) && r.URL.Query().Get("sendInitialEvents") == "true"
}

func isCMList(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configmaps") && !isWatch(r)
}

func isCMWatch(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configmaps") && isWatch(r)
}

var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Te", "Trailer"}

func (p *l7Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	if isCMList(r) {
		p.lists.Add(1)
	} else if isCMWatch(r) {
		p.watches.Add(1)
	}
	ru := p.rule(r)
	if ru != nil && ru.Respond != nil {
		ru.Respond(w, r)
		return
	}
	if ru != nil && ru.Delay > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(ru.Delay):
		}
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Header.Del("Authorization")
	// Let the upstream transport negotiate and undo gzip itself, so that
	// rules see plain JSON.
	out.Header.Del("Accept-Encoding")
	out.Header.Set("Accept", "application/json")
	out.ContentLength = r.ContentLength
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	watchResp := isWatch(r)
	if watchResp || (ru != nil && ru.Body != nil) {
		w.Header().Del("Content-Length")
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	flush := func() { rc.Flush() }
	flush()
	switch {
	case watchResp && ru != nil && ru.Frames != nil:
		br := bufio.NewReader(resp.Body)
		for i := 0; ; i++ {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				b, stop := ru.Frames(i, bytes.TrimSuffix(line, []byte("\n")))
				if b != nil {
					if _, werr := w.Write(b); werr != nil {
						return
					}
					flush()
				}
				if stop {
					return
				}
			}
			if err != nil {
				return
			}
		}
	case ru != nil && ru.Body != nil:
		ru.Body(w, flush, resp.Body)
	default:
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				if watchResp {
					flush()
				}
			}
			if err != nil {
				return
			}
		}
	}
}

// nl appends the newline that ends a JSON watch frame.
func nl(b []byte) []byte { return append(append([]byte(nil), b...), '\n') }
