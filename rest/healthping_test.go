package rest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blackholeProxy forwards TCP to target until freeze is called; afterwards
// it keeps the connections open but drops every byte, like a peer that
// vanished without a FIN.
type blackholeProxy struct {
	ln     net.Listener
	target string
	frozen atomic.Bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func newBlackholeProxy(t *testing.T, target string) *blackholeProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackholeProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *blackholeProxy) serve() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

func (p *blackholeProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *blackholeProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func TestHealthPingsEndAWatchOnADeadConnection(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaJSON)
		_, _ = io.WriteString(w, jsonEventLine("ADDED", cmJSON("a", "1")))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	proxy := newBlackholeProxy(t, srv.Listener.Addr().String())

	c, err := NewClient(&Config{
		Host:               "https://" + proxy.ln.Addr().String(),
		TLS:                TLSConfig{CAData: serverCA(t, srv), ServerName: "example.com"},
		HealthPingInterval: 200 * time.Millisecond,
		PingTimeout:        200 * time.Millisecond,
		Logger:             discardLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Get().Resource("configmaps").Watch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := <-w.ResultChan(); ev.Type != "ADDED" {
		t.Fatalf("first event %v", ev)
	}
	proxy.frozen.Store(true)
	select {
	case _, ok := <-w.ResultChan():
		if ok {
			t.Fatal("unexpected event")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch on a dead connection did not end")
	}
	if err := w.Err(); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Err = %v, want a connection error", err)
	} else {
		t.Logf("watch ended with: %v", err)
	}
}
