package websocket

import (
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // RFC 6455 fixes SHA-1 for the accept key
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// acceptGUID is the constant of RFC 6455 section 1.3.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// ErrHandshake is wrapped by every failure of the opening handshake's
// answer (wrong accept key, a subprotocol that was not offered).
var ErrHandshake = errors.New("websocket: bad handshake")

// Handshake is one opening handshake: the headers of the upgrade request
// and what the answer must carry.
type Handshake struct {
	key       string
	protocols []string
}

// NewHandshake starts a handshake offering protocols, in order of
// preference (the server picks one). It fails only if the system's random
// source does.
func NewHandshake(protocols ...string) (*Handshake, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("websocket: making a key: %w", err)
	}
	return &Handshake{key: base64.StdEncoding.EncodeToString(nonce[:]), protocols: slices.Clone(protocols)}, nil
}

// Header returns the headers of the upgrade request (a GET).
func (h *Handshake) Header() http.Header {
	hdr := http.Header{}
	hdr.Set("Connection", "Upgrade")
	hdr.Set("Upgrade", "websocket")
	hdr.Set("Sec-WebSocket-Version", "13")
	hdr.Set("Sec-WebSocket-Key", h.key)
	if len(h.protocols) > 0 {
		hdr.Set("Sec-WebSocket-Protocol", strings.Join(h.protocols, ", "))
	}
	return hdr
}

// Check verifies the headers of a 101 answer and returns the subprotocol the
// server chose ("" when none was offered). Errors wrap ErrHandshake.
func (h *Handshake) Check(answer http.Header) (string, error) {
	if !strings.EqualFold(answer.Get("Upgrade"), "websocket") {
		return "", fmt.Errorf("%w: Upgrade header is %q", ErrHandshake, answer.Get("Upgrade"))
	}
	if got, want := answer.Get("Sec-WebSocket-Accept"), acceptKey(h.key); got != want {
		return "", fmt.Errorf("%w: Sec-WebSocket-Accept does not match the key", ErrHandshake)
	}
	if ext := answer.Get("Sec-WebSocket-Extensions"); ext != "" {
		return "", fmt.Errorf("%w: server chose extensions %q that were not offered", ErrHandshake, ext)
	}
	proto := strings.TrimSpace(answer.Get("Sec-WebSocket-Protocol"))
	if len(h.protocols) == 0 {
		if proto != "" {
			return "", fmt.Errorf("%w: server chose subprotocol %q, none was offered", ErrHandshake, proto)
		}
		return "", nil
	}
	if !slices.Contains(h.protocols, proto) {
		return "", fmt.Errorf("%w: server chose subprotocol %q, offered %v", ErrHandshake, proto, h.protocols)
	}
	return proto, nil
}

// acceptKey is the Sec-WebSocket-Accept value for key.
func acceptKey(key string) string {
	sum := sha1.Sum([]byte(key + acceptGUID)) //nolint:gosec // fixed by RFC 6455
	return base64.StdEncoding.EncodeToString(sum[:])
}
