// Package websocket is the client side of RFC 6455, just what the
// Kubernetes streaming subresources need: the opening handshake's headers
// and their check, and a Conn that writes masked frames and reads the
// server's frames as a stream, one message at a time.
//
// The HTTP exchange itself is not here: the caller sends the upgrade
// request through its own HTTP client (package rest does, so the handshake
// uses the same credentials, TLS and proxy as every other request) and
// hands the upgraded connection to NewConn.
//
// Memory is bounded: a message is never held whole; NextReader returns a
// reader over its payload, and control frames are at most 125 bytes.
// Extensions (compression) are never offered, so none can be in use.
package websocket
