// Package portforward reaches TCP ports of a Pod through kube-apiserver's
// portforward subresource, over WebSocket (the v4.channel.k8s.io framing
// the kubelet speaks).
//
// Dial opens one connection to one port and returns it as a net.Conn, for
// programs that talk to the Pod themselves. Start listens on local ports
// and forwards each accepted connection over a WebSocket of its own, so any
// number of connections run at once through one Forward, each with its own
// flow control.
//
// Everything goes through a *rest.Client: the same credentials, TLS and
// proxy as every other request.
//
// Each connection has a data channel and an error channel. What the
// kubelet reports on the error channel (it could not connect to the port,
// the connection broke) ends the connection with a *RemoteError. The
// protocol has no half-close: when one side stops sending, the connection
// ends.
package portforward
