// Package podexec runs commands in a Pod's containers and attaches to
// them, through kube-apiserver's exec and attach subresources, over the
// WebSocket channel protocol: v5.channel.k8s.io, or v4.channel.k8s.io when
// the server picks it.
//
// Run and Attach take a *rest.Client, so the connection uses the client's
// credentials (token, token file, exec plugin, client certificate), TLS,
// proxy and impersonation; the upgrade is an ordinary request of that
// client on a connection of its own.
//
// # Streams
//
// Stdin is copied to the container until it returns io.EOF; under v5 the
// end of Stdin is then signalled, so a command that reads to the end of
// its input (cat, a shell) sees it and exits. Under v4 the protocol has no
// such signal: the command's stdin stays open until the stream ends.
// Stdout and Stderr receive what the container writes, in order, as it
// arrives; writing to them is the only buffering, so memory stays bounded
// however much the command prints (a slow writer slows the server down).
// With TTY the terminal merges stderr into stdout, and sizes sent on
// Resize reach the terminal.
//
// # Results
//
// A command that exits with status zero makes Run return nil. A non-zero
// exit is not a failure of the stream: Run returns an *ExitError carrying
// the code. Refusals by the server (no such pod, 403 Forbidden with its
// reason) are *apierrors.StatusError. A stream that breaks before the
// server said how the command ended is a *StreamError (it wraps
// ErrNoStatus when the stream closed cleanly but without a result). One
// case the client cannot see: when kube-apiserver translates the stream to
// SPDY for the kubelet (a node that does not declare
// ExtendWebSocketsToKubelet), it reports a kubelet that hangs up without a
// result as a success, and Run returns nil.
// Cancelling the context closes the stream at once; Run then returns an
// error wrapping the context's error.
//
// # Older servers
//
// There is no SPDY fallback. kube-apiserver has proxied WebSocket exec and
// attach to the kubelet (which speaks v4.channel.k8s.io) for many
// releases, and has spoken v5 itself since 1.30; the only thing an older
// server lacks is the end-of-stdin signal. A SPDY client would add a
// dependency and a second framing for that alone.
package podexec
