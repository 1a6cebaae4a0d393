package podexec

import (
	"bytes"
	"context"
	"crypto/sha1" //nolint:gosec // RFC 6455
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/internal/websocket"
	"github.com/kubego/kubego/rest"
)

// serverFrame encodes an unmasked frame as a server sends it.
func serverFrame(op websocket.Opcode, payload []byte) []byte {
	b := []byte{0x80 | byte(op)}
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

func channelMsg(ch byte, data string) []byte {
	return serverFrame(websocket.OpBinary, append([]byte{ch}, data...))
}

// scriptedHandler answers the upgrade with protocol and then writes out,
// raw, and hangs up.
func scriptedHandler(protocol string, out []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) //nolint:gosec // RFC 6455
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(sum[:]), protocol)
		_, _ = brw.Write(out)
		_ = brw.Flush()
	})
}

// scriptedServer serves scriptedHandler and returns a client for it.
func scriptedServer(t *testing.T, protocol string, out []byte) *rest.Client {
	t.Helper()
	srv := httptest.NewServer(scriptedHandler(protocol, out))
	t.Cleanup(srv.Close)
	c, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newClientForTest is a client of host trusting ca, through proxy.
func newClientForTest(host string, ca []byte, proxy *url.URL) (*rest.Client, error) {
	return rest.NewClient(&rest.Config{
		Host:        host,
		TLS:         rest.TLSConfig{CAData: ca},
		BearerToken: "secret",
		Proxy:       http.ProxyURL(proxy),
	})
}

const (
	success = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`
	exit3   = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"command terminated with non-zero exit code","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`
	refused = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"container not found","reason":"NotFound","code":404}`
)

var normalClose = serverFrame(websocket.OpClose, []byte{0x03, 0xE8})

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestStreamResults(t *testing.T) {
	tests := []struct {
		name   string
		out    []byte
		check  func(error) bool
		stdout string
		stderr string
	}{
		{
			name:   "output is split by channel and success is nil",
			out:    join(channelMsg(chanStdout, ""), channelMsg(chanStdout, "out1 "), channelMsg(chanStderr, "err"), channelMsg(chanStdout, "out2"), channelMsg(chanError, success), normalClose),
			check:  func(err error) bool { return err == nil },
			stdout: "out1 out2", stderr: "err",
		},
		{
			name: "a non-zero exit is an *ExitError with the code",
			out:  join(channelMsg(chanStdout, "x"), channelMsg(chanError, exit3), normalClose),
			check: func(err error) bool {
				var e *ExitError
				return errors.As(err, &e) && e.Code == 3
			},
			stdout: "x",
		},
		{
			name:  "another failure is a StatusError",
			out:   join(channelMsg(chanError, refused), normalClose),
			check: func(err error) bool { return apierrors.IsNotFound(err) },
		},
		{
			name:   "a clean close without a result is ErrNoStatus",
			out:    join(channelMsg(chanStdout, "partial"), normalClose),
			check:  func(err error) bool { return errors.Is(err, ErrNoStatus) },
			stdout: "partial",
		},
		{
			name: "a dropped connection is a StreamError",
			out:  channelMsg(chanStdout, "partial"),
			check: func(err error) bool {
				var se *StreamError
				return errors.As(err, &se) && !errors.Is(err, ErrNoStatus)
			},
			stdout: "partial",
		},
		{
			name:   "a masked frame from the server is a protocol error",
			out:    join(channelMsg(chanStdout, "ok"), []byte{0x82, 0x81, 1, 2, 3, 4, 5}),
			check:  func(err error) bool { return errors.Is(err, websocket.ErrProtocol) },
			stdout: "ok",
		},
		{
			name:  "a reserved opcode from the server is a protocol error",
			out:   []byte{0x83, 0},
			check: func(err error) bool { return errors.Is(err, websocket.ErrProtocol) },
		},
		{
			name:  "an undecodable result is a StreamError",
			out:   join(channelMsg(chanError, "{not json"), normalClose),
			check: func(err error) bool { var se *StreamError; return errors.As(err, &se) },
		},
		{
			name:  "an oversized result is a StreamError",
			out:   join(channelMsg(chanError, strings.Repeat("x", maxStatus+1)), normalClose),
			check: func(err error) bool { var se *StreamError; return errors.As(err, &se) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scriptedServer(t, protocolV4, tt.out)
			var stdout, stderr bytes.Buffer
			err := Run(t.Context(), c, Options{Namespace: "ns", Pod: "p", Command: []string{"x"}, Stdout: &stdout, Stderr: &stderr})
			if !tt.check(err) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Fatalf("stdout %q stderr %q; want %q %q", stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
		})
	}
}

func TestAProtocolTheClientDidNotOfferFailsTheHandshake(t *testing.T) {
	c := scriptedServer(t, "v3.channel.k8s.io", nil)
	err := Run(t.Context(), c, Options{Namespace: "ns", Pod: "p", Command: []string{"x"}, Stdout: new(bytes.Buffer)})
	if !errors.Is(err, websocket.ErrHandshake) {
		t.Fatalf("err = %v, want ErrHandshake", err)
	}
}

func TestARefusedUpgradeIsTheServersStatusError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"p\" is forbidden: User \"u\" cannot create resource \"pods/exec\"","reason":"Forbidden","code":403}`)
	}))
	defer srv.Close()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = Run(t.Context(), c, Options{Namespace: "ns", Pod: "p", Command: []string{"x"}, Stdout: new(bytes.Buffer)})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "cannot create resource") {
		t.Fatalf("err = %v, want the 403 with its cause", err)
	}
}

func TestInvalidOptionsAreRefusedBeforeAnyRequest(t *testing.T) {
	c, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	out := new(bytes.Buffer)
	tests := []struct {
		name string
		run  func() error
	}{
		{"Run without a command", func() error { return Run(context.Background(), c, Options{Namespace: "n", Pod: "p", Stdout: out}) }},
		{"Attach with a command", func() error {
			return Attach(context.Background(), c, Options{Namespace: "n", Pod: "p", Command: []string{"x"}, Stdout: out})
		}},
		{"no pod", func() error {
			return Run(context.Background(), c, Options{Namespace: "n", Command: []string{"x"}, Stdout: out})
		}},
		{"no stream", func() error {
			return Run(context.Background(), c, Options{Namespace: "n", Pod: "p", Command: []string{"x"}})
		}},
		{"only stderr with a tty", func() error {
			return Run(context.Background(), c, Options{Namespace: "n", Pod: "p", Command: []string{"x"}, Stderr: out, TTY: true})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("err = %v, want ErrInvalidOptions", err)
			}
		})
	}
}
