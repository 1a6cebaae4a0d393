package faults_test

import (
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// l4Mode is what an L4 proxy does with bytes and new connections.
type l4Mode int

const (
	l4Pass      l4Mode = iota // forward
	l4Pause                   // hold bytes (both directions) until the mode changes
	l4BlackHole               // drop bytes silently; no FIN, no RST
	l4Refuse                  // reset new connections at once; existing ones pass
)

// tcpProxy is a loopback TCP proxy in front of one target address. Its
// methods are safe for concurrent use; it is closed at test cleanup.
type tcpProxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu      sync.Mutex
	mode    l4Mode
	latency time.Duration
	changed chan struct{} // closed and replaced whenever mode changes
	conns   map[*l4Conn]struct{}
	closed  bool

	accepted atomic.Int64
	resets   atomic.Int64
	wg       sync.WaitGroup
}

type l4Conn struct{ client, server *net.TCPConn }

func newTCPProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{t: t, ln: ln, target: target, changed: make(chan struct{}), conns: map[*l4Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// URL is the https URL of the proxy (the API server's certificate covers
// 127.0.0.1, so TLS passes through unchanged).
func (p *tcpProxy) URL() string {
	return "https://127.0.0.1:" + strconv.Itoa(p.ln.Addr().(*net.TCPAddr).Port)
}

// SetMode switches the proxy's behaviour for existing and new connections.
func (p *tcpProxy) SetMode(m l4Mode) {
	p.mu.Lock()
	p.mode = m
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// SetLatency delays every forwarded chunk by d.
func (p *tcpProxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// Reset sends RST on both sides of every open connection and returns how
// many connections it reset.
func (p *tcpProxy) Reset() int {
	p.mu.Lock()
	conns := make([]*l4Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		rst(c.client)
		rst(c.server)
	}
	p.resets.Add(int64(len(conns)))
	return len(conns)
}

// Open returns the number of connections currently proxied.
func (p *tcpProxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

func rst(c *net.TCPConn) {
	c.SetLinger(0)
	c.Close()
}

// Close stops accepting, resets every connection and waits for the
// proxy's goroutines.
func (p *tcpProxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	p.ln.Close()
	p.Reset()
	p.wg.Wait()
}

func (p *tcpProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		cc := c.(*net.TCPConn)
		p.mu.Lock()
		refuse := p.mode == l4Refuse || p.closed
		p.mu.Unlock()
		if refuse {
			rst(cc)
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 2*time.Second)
		if err != nil {
			rst(cc)
			continue
		}
		conn := &l4Conn{client: cc, server: s.(*net.TCPConn)}
		p.mu.Lock()
		p.conns[conn] = struct{}{}
		p.mu.Unlock()
		var done sync.WaitGroup
		done.Add(2)
		p.wg.Add(3)
		go func() { defer p.wg.Done(); defer done.Done(); p.pipe(conn.server, conn.client) }()
		go func() { defer p.wg.Done(); defer done.Done(); p.pipe(conn.client, conn.server) }()
		go func() {
			defer p.wg.Done()
			done.Wait()
			p.mu.Lock()
			delete(p.conns, conn)
			p.mu.Unlock()
		}()
	}
}

// pipe copies src to dst chunk by chunk, applying the mode to each chunk.
// When src ends it half-closes dst (a FIN passes through); when either side
// fails both are reset.
func (p *tcpProxy) pipe(dst, src *net.TCPConn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.forward(dst, buf[:n]) {
			rst(dst)
			rst(src)
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				dst.CloseWrite()
				return
			}
			rst(dst)
			rst(src)
			return
		}
	}
}

// forward applies the mode to one chunk: it may wait (pause), drop
// (black hole) or delay it. It returns false when the proxy is closed.
func (p *tcpProxy) forward(dst *net.TCPConn, b []byte) bool {
	for {
		p.mu.Lock()
		mode, lat, changed, closed := p.mode, p.latency, p.changed, p.closed
		p.mu.Unlock()
		if closed {
			return false
		}
		switch mode {
		case l4Pause:
			<-changed
			continue
		case l4BlackHole:
			return true
		}
		if lat > 0 {
			time.Sleep(lat)
		}
		_, err := dst.Write(b)
		return err == nil
	}
}
