package rest

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadAllLimited(t *testing.T) {
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		return b
	}
	for _, tt := range []struct {
		name      string
		n         int   // body length
		limit     int64 // MaxResponseBytes
		size      int64 // announced length, -1 unknown
		oneByte   bool  // the reader gives a byte per Read
		wantLimit bool
	}{
		{"empty body", 0, 100, -1, false, false},
		{"empty body announced", 0, 100, 0, false, false},
		{"small body", 10, 100, -1, false, false},
		{"at the limit", 100, 100, -1, false, false},
		{"one byte over the limit", 101, 100, -1, false, true},
		{"announced and at the limit", 100, 100, 100, false, false},
		{"announced over the limit", 101, 100, 101, false, true},
		{"announced less than sent", 50, 100, 10, false, false},
		{"announced more than sent", 10, 100, 50, false, false},
		{"several chunks", 3*maxChunk + 12345, 64 << 20, -1, false, false},
		{"several chunks over the limit", 3*maxChunk + 12345, 3 * maxChunk, -1, false, true},
		{"chunk boundary", firstChunk, firstChunk, -1, false, false},
		{"one past a chunk boundary", firstChunk + 1, firstChunk + 1, -1, true, false},
		{"a byte at a time", 3 * firstChunk, 1 << 20, -1, true, false},
		{"a byte at a time over the limit", 3 * firstChunk, 2 * firstChunk, -1, true, true},
		{"limit zero", 1, 0, -1, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := body(tt.n)
			var r io.Reader = bytes.NewReader(want)
			if tt.oneByte {
				r = iotest.OneByteReader(r)
			}
			got, err := readAllLimited(r, tt.limit, tt.size)
			var le *LimitError
			if tt.wantLimit {
				if !errors.As(err, &le) || le.Limit != LimitResponseBytes || le.Max != tt.limit || got != nil {
					t.Fatalf("got %d bytes, %v; want a MaxResponseBytes LimitError of %d", len(got), err, tt.limit)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes (equal %v), %v; want the %d bytes", len(got), bytes.Equal(got, want), err, tt.n)
			}
		})
	}
}

// A read error is returned as it is.
func TestReadAllLimitedReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAllLimited(iotest.ErrReader(boom), 100, -1)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}
