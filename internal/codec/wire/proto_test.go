package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestSkipFailsAsTheGeneratedDecodersDo(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		end  int
		want error
	}{
		{"a varint field", []byte{0x08, 0x96, 0x01, 0xff}, 3, nil},
		{"a ten-byte varint", append(append([]byte{0x08}, bytes.Repeat([]byte{0xff}, 9)...), 0x01), 11, nil},
		{"an eleven-byte varint overflows", append(append([]byte{0x08}, bytes.Repeat([]byte{0x97}, 10)...), 0x30), 0, ErrIntOverflow},
		{"a varint cut short", []byte{0x08, 0x96}, 0, io.ErrUnexpectedEOF},
		{"a length-delimited field", []byte{0x12, 0x02, 'h', 'i', 0x08}, 4, nil},
		{"an end group without a start", []byte{0x0c}, 0, ErrEndGroup},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end, err := Skip(tc.b, 0)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("Skip = %d, %v; want error %v", end, err, tc.want)
			}
			if err == nil && end != tc.end {
				t.Fatalf("Skip = %d, want %d", end, tc.end)
			}
		})
	}
}
