package websocket

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
)

func TestHandshakeAcceptsOnlyTheMatchingKeyAndAnOfferedProtocol(t *testing.T) {
	hs, err := NewHandshake("v5.channel.k8s.io", "v4.channel.k8s.io")
	if err != nil {
		t.Fatal(err)
	}
	req := hs.Header()
	if req.Get("Sec-WebSocket-Protocol") != "v5.channel.k8s.io, v4.channel.k8s.io" || req.Get("Upgrade") != "websocket" {
		t.Fatalf("request headers: %v", req)
	}
	good := func() http.Header {
		h := http.Header{}
		h.Set("Upgrade", "websocket")
		h.Set("Sec-WebSocket-Accept", acceptKey(req.Get("Sec-WebSocket-Key")))
		h.Set("Sec-WebSocket-Protocol", "v4.channel.k8s.io")
		return h
	}
	tests := []struct {
		name   string
		change func(http.Header)
		want   string
		fails  bool
	}{
		{name: "the server's choice is returned", change: func(http.Header) {}, want: "v4.channel.k8s.io"},
		{name: "a wrong accept key fails", change: func(h http.Header) { h.Set("Sec-WebSocket-Accept", "x") }, fails: true},
		{name: "a protocol not offered fails", change: func(h http.Header) { h.Set("Sec-WebSocket-Protocol", "v3.channel.k8s.io") }, fails: true},
		{name: "no protocol fails when some were offered", change: func(h http.Header) { h.Del("Sec-WebSocket-Protocol") }, fails: true},
		{name: "an extension fails", change: func(h http.Header) { h.Set("Sec-WebSocket-Extensions", "permessage-deflate") }, fails: true},
		{name: "no Upgrade header fails", change: func(h http.Header) { h.Del("Upgrade") }, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := good()
			tt.change(h)
			got, err := hs.Check(h)
			if tt.fails {
				if !errors.Is(err, ErrHandshake) {
					t.Fatalf("Check = %q, %v; want ErrHandshake", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Check = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAcceptKeyFollowsRFC6455(t *testing.T) {
	// The example of RFC 6455 section 1.3.
	if got := acceptKey("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("acceptKey = %q", got)
	}
}

func readAll(t *testing.T, c *Conn) ([]Opcode, [][]byte, error) {
	t.Helper()
	var ops []Opcode
	var msgs [][]byte
	for {
		op, r, err := c.NextReader()
		if err != nil {
			return ops, msgs, err
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return ops, msgs, err
		}
		ops = append(ops, op)
		msgs = append(msgs, b)
	}
}

func TestFragmentedMessagesAreJoinedAndPingsAnsweredOnTheWay(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 7000) // needs the 64-bit length
	var in []byte
	in = append(in, frame(OpBinary, false, []byte("hel"), nil)...)
	in = append(in, frame(OpPing, true, []byte("p1"), nil)...)
	in = append(in, frame(OpContinuation, false, []byte("lo "), nil)...)
	in = append(in, frame(OpContinuation, true, []byte("world"), nil)...)
	in = append(in, frame(OpBinary, true, big, nil)...)
	in = append(in, frame(OpBinary, true, nil, nil)...)
	in = append(in, frame(OpText, true, make([]byte, 300), nil)...)
	in = append(in, frame(OpClose, true, []byte{0x03, 0xE8, 'o', 'k'}, nil)...)
	pc := newPipeConn(in)
	c := NewConn(pc)
	ops, msgs, err := readAll(t, c)
	var ce *CloseError
	if !errors.As(err, &ce) || !ce.Normal() || ce.Reason != "ok" {
		t.Fatalf("end: %v, want a normal *CloseError with reason ok", err)
	}
	if len(msgs) != 4 || string(msgs[0]) != "hello world" || !bytes.Equal(msgs[1], big) || len(msgs[2]) != 0 || len(msgs[3]) != 300 {
		t.Fatalf("messages: %d, first %q", len(msgs), msgs[0])
	}
	if ops[0] != OpBinary || ops[3] != OpText {
		t.Fatalf("opcodes %v", ops)
	}
	wops, payloads, masked := readFrames(pc.written())
	if !masked {
		t.Fatal("the client sent an unmasked frame")
	}
	if len(wops) != 2 || wops[0] != OpPong || string(payloads[0]) != "p1" || wops[1] != OpClose || !bytes.Equal(payloads[1], []byte{0x03, 0xE8}) {
		t.Fatalf("client answered %v %q; want a pong p1 and a close 1000", wops, payloads)
	}
	// The error is sticky.
	if _, _, err2 := c.NextReader(); err2 != err {
		t.Fatalf("second NextReader = %v, want %v", err2, err)
	}
}

func TestUnreadRestOfAMessageIsSkipped(t *testing.T) {
	var in []byte
	in = append(in, frame(OpBinary, false, []byte("skip"), nil)...)
	in = append(in, frame(OpContinuation, true, []byte(" me"), nil)...)
	in = append(in, frame(OpBinary, true, []byte("next"), nil)...)
	c := NewConn(newPipeConn(in))
	_, r1, err := c.NextReader()
	if err != nil {
		t.Fatal(err)
	}
	var one [1]byte
	if _, err := r1.Read(one[:]); err != nil {
		t.Fatal(err)
	}
	_, r2, err := c.NextReader()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2)
	if string(b) != "next" {
		t.Fatalf("second message %q", b)
	}
	if n, err := r1.Read(one[:]); n != 0 || err != io.EOF {
		t.Fatalf("stale reader = %d, %v; want io.EOF", n, err)
	}
}

func TestFramesAServerMustNotSendAreProtocolErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"masked frame", frame(OpBinary, true, []byte("x"), []byte{1, 2, 3, 4})},
		{"reserved bit", append([]byte{0x80 | 0x40 | byte(OpBinary), 0}, nil...)},
		{"reserved opcode", []byte{0x80 | 0x3, 0}},
		{"fragmented control frame", frame(OpPing, false, nil, nil)},
		{"long control frame", frame(OpPing, true, make([]byte, 126), nil)},
		{"continuation first", frame(OpContinuation, true, []byte("x"), nil)},
		{"new message inside a fragmented one", append(frame(OpBinary, false, []byte("a"), nil), frame(OpBinary, true, []byte("b"), nil)...)},
		{"length with the top bit", []byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1}},
		{"close of one byte", frame(OpClose, true, []byte{3}, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAll(t, NewConn(newPipeConn(tt.in)))
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("err = %v, want ErrProtocol", err)
			}
		})
	}
}

func TestATruncatedStreamIsAnUnexpectedEOF(t *testing.T) {
	full := frame(OpBinary, true, []byte("hello"), nil)
	for cut := 1; cut < len(full); cut++ {
		_, _, err := readAll(t, NewConn(newPipeConn(full[:cut])))
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: err = %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
}

func TestWritesAreMaskedFramesAndStopAfterClose(t *testing.T) {
	pc := newPipeConn(nil)
	c := NewConn(pc)
	sizes := []int{0, 1, 125, 126, 65535, 65536, 100000}
	for _, n := range sizes {
		p := bytes.Repeat([]byte{byte(n)}, n)
		if err := c.WriteMessage(OpBinary, []byte{7}, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage(OpBinary, []byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close = %v, want net.ErrClosed", err)
	}
	ops, payloads, masked := readFrames(pc.written())
	if !masked || len(ops) != len(sizes)+1 {
		t.Fatalf("masked %v, %d frames", masked, len(ops))
	}
	for i, n := range sizes {
		want := append([]byte{7}, bytes.Repeat([]byte{byte(n)}, n)...)
		if ops[i] != OpBinary || !bytes.Equal(payloads[i], want) {
			t.Fatalf("frame %d: op %v, %d bytes; want %d", i, ops[i], len(payloads[i]), len(want))
		}
	}
	if ops[len(sizes)] != OpClose {
		t.Fatalf("last frame %v, want a close", ops[len(sizes)])
	}
}

func TestMaskBytesMatchesTheBytewiseDefinition(t *testing.T) {
	key := [4]byte{0x12, 0x34, 0x56, 0x78}
	for n := range 40 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		want := bytes.Clone(b)
		for i := range want {
			want[i] ^= key[i%4]
		}
		maskBytes(key, b)
		if !bytes.Equal(b, want) {
			t.Fatalf("n=%d: %x, want %x", n, b, want)
		}
	}
}
