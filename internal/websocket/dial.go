package websocket

import (
	"context"
	"io"
	"net/http"
)

// Upgrader sends an upgrade request carrying header and returns the
// upgraded connection and the headers of the 101 answer
// (rest.Request.Upgrade, with the headers set on the request).
type Upgrader func(ctx context.Context, header http.Header) (io.ReadWriteCloser, http.Header, error)

// Dial performs the opening handshake through upgrade, offering protocols
// in order of preference, and returns the Conn and the subprotocol the
// server chose. Errors from upgrade are returned unchanged; a bad answer
// wraps ErrHandshake (the connection is then closed).
func Dial(ctx context.Context, upgrade Upgrader, protocols ...string) (*Conn, string, error) {
	hs, err := NewHandshake(protocols...)
	if err != nil {
		return nil, "", err
	}
	rwc, answer, err := upgrade(ctx, hs.Header())
	if err != nil {
		return nil, "", err
	}
	proto, err := hs.Check(answer)
	if err != nil {
		_ = rwc.Close()
		return nil, "", err
	}
	return NewConn(rwc), proto, nil
}
