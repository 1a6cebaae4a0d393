package websocket

import (
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the frame reader: it must never
// panic, never return more payload than it was given, and end with an
// error.
func FuzzReader(f *testing.F) {
	f.Add(frame(OpBinary, true, []byte("\x01hello"), nil))
	f.Add(append(frame(OpBinary, false, []byte("a"), nil), frame(OpContinuation, true, []byte("b"), nil)...))
	f.Add(frame(OpPing, true, []byte("x"), nil))
	f.Add(frame(OpClose, true, []byte{3, 232}, nil))
	f.Add(frame(OpBinary, true, make([]byte, 70000), nil))
	f.Add([]byte{0x82, 127, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(newPipeConn(in))
		var total int
		// Every message takes at least two bytes of input.
		for range len(in)/2 + 2 {
			_, r, err := c.NextReader()
			if err != nil {
				if total > len(in) {
					t.Fatalf("read %d payload bytes from %d input bytes", total, len(in))
				}
				return
			}
			n, err := io.Copy(io.Discard, r)
			total += int(n)
			if err != nil && total > len(in) {
				t.Fatalf("read %d payload bytes from %d input bytes", total, len(in))
			}
		}
		t.Fatalf("more messages than %d input bytes can hold", len(in))
	})
}
