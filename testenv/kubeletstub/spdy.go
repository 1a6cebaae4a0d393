package kubeletstub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
)

// streamWait bounds the wait for the client's streams after an upgrade.
const streamWait = 30 * time.Second

// acceptStreams upgrades r to SPDY after negotiating one of protocols and
// returns the connection and a channel of the streams the client opens
// (each usable once its reply is sent).
func acceptStreams(w http.ResponseWriter, r *http.Request, protocols []string) (httpstream.Connection, string, <-chan httpstream.Stream, bool) {
	proto, err := httpstream.Handshake(r, w, protocols)
	if err != nil {
		return nil, "", nil, false // Handshake answered
	}
	streams, handler := streamQueue()
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, handler)
	if conn == nil {
		return nil, "", nil, false
	}
	return conn, proto, streams, true
}

// streamQueue returns a stream handler for a SPDY connection that hands
// each new stream, once its reply is sent, to the returned channel.
func streamQueue() (<-chan httpstream.Stream, httpstream.NewStreamHandler) {
	streams := make(chan httpstream.Stream, 8)
	return streams, func(s httpstream.Stream, replySent <-chan struct{}) error {
		go func() {
			<-replySent
			streams <- s
		}()
		return nil
	}
}

// serveSPDYStream serves one exec or attach session over SPDY, as kubelets
// do for kube-apiserver when it translates a WebSocket stream (and for
// SPDY clients).
func (k *Kubelet) serveSPDYStream(w http.ResponseWriter, r *http.Request, p *Process, stdin, stdout, stderr bool) {
	conn, _, incoming, ok := acceptStreams(w, r, []string{"v4.channel.k8s.io"})
	if !ok {
		return
	}
	defer conn.Close()
	want := map[string]bool{"error": true, "stdin": stdin, "stdout": stdout, "stderr": stderr, "resize": p.TTY}
	needed := 0
	for _, on := range want {
		if on {
			needed++
		}
	}
	got := map[string]httpstream.Stream{}
	timeout := time.NewTimer(streamWait)
	defer timeout.Stop()
	for len(got) < needed {
		select {
		case s := <-incoming:
			typ := s.Headers().Get("streamType")
			if !want[typ] {
				_ = s.Reset()
				continue
			}
			got[typ] = s
		case <-timeout.C:
			k.log.Debug("kubeletstub: timed out waiting for the client's streams", "have", len(got), "want", needed)
			return
		case <-conn.CloseChan():
			return
		}
	}
	ctx, cancel := context.WithCancel(k.ctx)
	defer cancel()
	go func() {
		select {
		case <-conn.CloseChan():
			cancel()
		case <-ctx.Done():
		}
	}()
	if stdin {
		p.Stdin = got["stdin"]
	}
	if stdout {
		p.Stdout = got["stdout"]
	}
	if stderr {
		p.Stderr = got["stderr"]
	}
	if p.TTY {
		sizes := make(chan TerminalSize, maxPendingSizes)
		p.Resize = sizes
		go readSizes(ctx, got["resize"], sizes)
	}
	runErr := k.opts.Run(ctx, p)
	if errors.Is(runErr, ErrHangUp) || k.ctx.Err() != nil {
		return
	}
	if b, err := json.Marshal(status(runErr)); err == nil {
		_, _ = got["error"].Write(b)
	}
	for _, s := range got {
		_ = s.Close()
	}
}

// serveSPDYPortForward serves port-forward over SPDY: the client opens a
// pair of streams (error, data) per connection, tied by their requestID.
func (k *Kubelet) serveSPDYPortForward(w http.ResponseWriter, r *http.Request, ns, pod string) {
	conn, _, incoming, ok := acceptStreams(w, r, []string{"portforward.k8s.io"})
	if !ok {
		return
	}
	k.portForwardStreams(conn, incoming, ns, pod)
}

// portForwardStreams forwards each pair of streams of conn until it
// closes, then closes it.
func (k *Kubelet) portForwardStreams(conn httpstream.Connection, incoming <-chan httpstream.Stream, ns, pod string) {
	defer conn.Close()
	ctx, cancel := context.WithCancel(k.ctx)
	defer cancel()
	type pair struct{ data, errs httpstream.Stream }
	pairs := map[string]*pair{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var s httpstream.Stream
		select {
		case s = <-incoming:
		case <-conn.CloseChan():
			cancel()
			return
		case <-ctx.Done():
			return
		}
		h := s.Headers()
		id := h.Get("requestID")
		p := pairs[id]
		if p == nil {
			p = &pair{}
			pairs[id] = p
		}
		switch h.Get("streamType") {
		case "data":
			p.data = s
		case "error":
			p.errs = s
		default:
			_ = s.Reset()
			continue
		}
		if p.data == nil || p.errs == nil {
			continue
		}
		delete(pairs, id)
		port, err := strconv.ParseUint(h.Get("port"), 10, 16)
		if err != nil || port == 0 {
			_, _ = fmt.Fprintf(p.errs, "invalid port %q", h.Get("port"))
			_ = p.errs.Close()
			_ = p.data.Reset()
			continue
		}
		wg.Go(func() {
			defer conn.RemoveStreams(p.data, p.errs)
			if err := k.forward(ctx, ns, pod, uint16(port), p.data); err != nil {
				_, _ = io.WriteString(p.errs, err.Error())
			}
			_ = p.errs.Close()
			_ = p.data.Close()
		})
	}
}
