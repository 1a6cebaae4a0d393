package kubeletstub

import (
	"errors"
	"net/http"
	"slices"

	"golang.org/x/net/websocket"
	"k8s.io/streaming/pkg/httpstream/spdy"
)

// tunnelProtocol is SPDY port-forward carried in WebSocket binary messages,
// what kubectl 1.31 and later ask for.
const tunnelProtocol = "SPDY/3.1+portforward.k8s.io"

// serveTunnel serves port-forward as SPDY inside a WebSocket, as kubelets
// that declare ExtendWebSocketsToKubelet do.
func (k *Kubelet) serveTunnel(w http.ResponseWriter, r *http.Request, ns, pod string) {
	websocket.Server{
		Handshake: func(cfg *websocket.Config, _ *http.Request) error {
			if !slices.Contains(cfg.Protocol, tunnelProtocol) {
				return errors.New("no supported protocol")
			}
			cfg.Protocol = []string{tunnelProtocol}
			return nil
		},
		Handler: func(ws *websocket.Conn) {
			ws.PayloadType = websocket.BinaryFrame
			incoming, handler := streamQueue()
			conn, err := spdy.NewServerConnection(ws, handler)
			if err != nil {
				k.log.Debug("kubeletstub: tunnelled SPDY failed", "err", err)
				return
			}
			k.portForwardStreams(conn, incoming, ns, pod)
		},
	}.ServeHTTP(w, r)
}
