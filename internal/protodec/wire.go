package protodec

import (
	"errors"
	"io"
)

// Errors of malformed input. Like the generated decoders, a truncated
// message is io.ErrUnexpectedEOF.
var (
	ErrInvalidLength = errors.New("protodec: negative or overflowing length")
	ErrIntOverflow   = errors.New("protodec: varint overflows 64 bits")
	ErrWireType      = errors.New("protodec: wrong wire type for field")
	ErrIllegalTag    = errors.New("protodec: illegal field tag")
	ErrEndGroup      = errors.New("protodec: unexpected end of group")
)

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireStart   = 3
	wireEnd     = 4
	wireFixed32 = 5
)

// varint reads a varint at b[i:], returning it and the index after it.
func varint(b []byte, i int) (uint64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, 0, ErrIntOverflow
		}
		if i >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
}

// length reads a length prefix at b[i:] and returns the bounds [start,end)
// of the bytes it announces.
func length(b []byte, i int) (int, int, error) {
	v, i, err := varint(b, i)
	if err != nil {
		return 0, 0, err
	}
	n := int(v) // as the generated code does: a huge length turns negative
	if n < 0 {
		return 0, 0, ErrInvalidLength
	}
	end := i + n
	if end < 0 {
		return 0, 0, ErrInvalidLength
	}
	if end > len(b) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, end, nil
}

// skip returns the index after the field whose tag starts at b[i:], groups
// included, with the generated decoders' rules for what is an error.
func skip(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		tag, j, err := varint(b, i)
		if err != nil {
			return 0, err
		}
		i = j
		switch tag & 7 {
		case wireVarint:
			for {
				if i >= len(b) {
					return 0, io.ErrUnexpectedEOF
				}
				i++
				if b[i-1] < 0x80 {
					break
				}
			}
		case wireFixed64:
			i += 8
		case wireBytes:
			v, j, err := varint(b, i)
			if err != nil {
				return 0, err
			}
			n := int(v)
			i = j
			if n < 0 {
				return 0, ErrInvalidLength
			}
			i += n
		case wireStart:
			depth++
		case wireEnd:
			if depth == 0 {
				return 0, ErrEndGroup
			}
			depth--
		case wireFixed32:
			i += 4
		default:
			return 0, ErrWireType
		}
		if i < 0 {
			return 0, ErrInvalidLength
		}
		if depth == 0 {
			if i > len(b) {
				return 0, io.ErrUnexpectedEOF
			}
			return i, nil
		}
	}
	return 0, io.ErrUnexpectedEOF
}
