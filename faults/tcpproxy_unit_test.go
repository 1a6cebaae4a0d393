package faults_test

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer accepts connections on loopback and echoes what it reads.
func echoServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func dialProxy(t *testing.T, p *tcpProxy) net.Conn {
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes one byte and reads it back within d.
func roundTrip(c net.Conn, d time.Duration) error {
	c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte{'x'}); err != nil {
		return err
	}
	b := make([]byte, 1)
	_, err := io.ReadFull(c, b)
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// The L4 proxy's modes, checked against an echo server.
func TestTCPProxyModes(t *testing.T) {
	t.Run("pass forwards both ways", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		if err := roundTrip(dialProxy(t, p), time.Second); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("pause holds bytes until resumed", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		c := dialProxy(t, p)
		if err := roundTrip(c, time.Second); err != nil {
			t.Fatal(err)
		}
		p.SetMode(l4Pause)
		if err := roundTrip(c, 200*time.Millisecond); !isTimeout(err) {
			t.Fatalf("paused: %v, want a timeout", err)
		}
		p.SetMode(l4Pass)
		c.SetDeadline(time.Now().Add(time.Second))
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatalf("held byte not delivered after resume: %v", err)
		}
	})
	t.Run("black hole drops bytes without closing", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		c := dialProxy(t, p)
		p.SetMode(l4BlackHole)
		if err := roundTrip(c, 200*time.Millisecond); !isTimeout(err) {
			t.Fatalf("black hole: %v, want a timeout (no FIN, no RST)", err)
		}
		p.SetMode(l4Pass)
		if err := roundTrip(c, time.Second); err != nil {
			t.Fatalf("after the black hole: %v", err)
		}
	})
	t.Run("reset breaks open connections", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		c := dialProxy(t, p)
		if err := roundTrip(c, time.Second); err != nil {
			t.Fatal(err)
		}
		if n := p.Reset(); n != 1 {
			t.Fatalf("reset %d connections, want 1", n)
		}
		if err := roundTrip(c, time.Second); err == nil || isTimeout(err) {
			t.Fatalf("after reset: %v, want a connection error", err)
		}
	})
	t.Run("refuse resets new connections", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		p.SetMode(l4Refuse)
		c, err := net.Dial("tcp", p.ln.Addr().String())
		if err == nil {
			defer c.Close()
			err = roundTrip(c, time.Second)
		}
		if err == nil || isTimeout(err) {
			t.Fatalf("refused: %v, want a connection error", err)
		}
	})
	t.Run("latency delays each chunk", func(t *testing.T) {
		p := newTCPProxy(t, echoServer(t))
		p.SetLatency(100 * time.Millisecond)
		start := time.Now()
		if err := roundTrip(dialProxy(t, p), 2*time.Second); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 200*time.Millisecond {
			t.Fatalf("round trip took %s, want ≥ 200ms (two delayed chunks)", d)
		}
	})
}
