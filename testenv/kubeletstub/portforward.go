package kubeletstub

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// servePortForward serves port-forward over SPDY (serveSPDYPortForward),
// SPDY tunnelled in WebSocket (serveTunnel) or the kubelet's WebSocket
// port-forward protocol:
// for the i-th requested port, channel 2i carries data and 2i+1 errors;
// each channel starts with the port number (two bytes, little-endian).
// One TCP connection to each port is made per WebSocket.
func (k *Kubelet) servePortForward(w http.ResponseWriter, r *http.Request) {
	if wsstream.IsWebSocketRequestWithTunnelingProtocol(r) {
		k.serveTunnel(w, r, r.PathValue("namespace"), r.PathValue("pod"))
		return
	}
	if !wsstream.IsWebSocketRequest(r) {
		if httpstream.IsUpgradeRequest(r) {
			k.serveSPDYPortForward(w, r, r.PathValue("namespace"), r.PathValue("pod"))
			return
		}
		http.Error(w, "upgrade to WebSocket or SPDY required", http.StatusBadRequest)
		return
	}
	var ports []uint16
	for s := range strings.SplitSeq(r.URL.Query().Get("port"), ",") {
		p, err := strconv.ParseUint(strings.TrimSpace(s), 10, 16)
		if err != nil || p == 0 {
			http.Error(w, fmt.Sprintf("invalid port %q", s), http.StatusBadRequest)
			return
		}
		ports = append(ports, uint16(p))
	}
	channels := make([]wsstream.ChannelType, 0, 2*len(ports))
	for range ports {
		channels = append(channels, wsstream.ReadWriteChannel, wsstream.WriteChannel)
	}
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		"":                  {Binary: true, Channels: channels},
		"v4.channel.k8s.io": {Binary: true, Channels: channels},
	})
	_, streams, err := conn.Open(w, r)
	if err != nil {
		k.log.Debug("kubeletstub: opening a port-forward stream failed", "err", err)
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(k.ctx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	ns, pod := r.PathValue("namespace"), r.PathValue("pod")

	var wg sync.WaitGroup
	for i, port := range ports {
		data, errs := streams[2*i], streams[2*i+1]
		var prefix [2]byte
		binary.LittleEndian.PutUint16(prefix[:], port)
		if _, err := data.Write(prefix[:]); err != nil {
			return
		}
		if _, err := errs.Write(prefix[:]); err != nil {
			return
		}
		wg.Go(func() {
			if err := k.forward(ctx, ns, pod, port, data); err != nil {
				_, _ = errs.Write([]byte(err.Error()))
			}
		})
	}
	wg.Wait()
}

// halfCloseLinger is how long forward waits, after the client's side of a
// connection ended, for the port's answer to end too.
const halfCloseLinger = 5 * time.Second

// forward connects data to port of the Pod. When the client's side ends,
// the port's connection is half-closed and its answer still delivered
// (up to halfCloseLinger); when the port's side ends, forward returns.
func (k *Kubelet) forward(ctx context.Context, ns, pod string, port uint16, data io.ReadWriter) error {
	target, err := k.opts.Dial(ctx, ns, pod, port)
	if err != nil {
		return fmt.Errorf("error forwarding port %d to pod %s/%s: %w", port, ns, pod, err)
	}
	defer target.Close()
	stop := context.AfterFunc(ctx, func() { _ = target.Close() })
	defer stop()
	fromClient := make(chan error, 1)
	toClient := make(chan struct{})
	go func() {
		_, err := io.Copy(target, data)
		fromClient <- err
	}()
	go func() {
		_, _ = io.Copy(data, target)
		close(toClient)
	}()
	select {
	case err := <-fromClient:
		if cw, ok := target.(interface{ CloseWrite() error }); ok && err == nil {
			_ = cw.CloseWrite()
		}
		linger := time.NewTimer(halfCloseLinger)
		defer linger.Stop()
		select {
		case <-toClient:
		case <-linger.C:
		case <-ctx.Done():
		}
	case <-toClient:
	}
	return nil
}
