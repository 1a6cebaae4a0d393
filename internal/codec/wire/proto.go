package wire

import (
	"encoding/binary"
	"errors"
	"io"
)

// Errors of malformed protobuf. They follow the generated decoders of
// k8s.io/api: a truncated message is io.ErrUnexpectedEOF, and every input
// those decoders reject is rejected here with one of these.
var (
	ErrInvalidLength = errors.New("wire: negative or overflowing length")
	ErrIntOverflow   = errors.New("wire: varint overflows 64 bits")
	ErrWireType      = errors.New("wire: wrong wire type for field")
	ErrIllegalTag    = errors.New("wire: illegal field tag")
	ErrEndGroup      = errors.New("wire: unexpected end of group")
)

// The protobuf wire types.
const (
	Varint     = 0
	Fixed64    = 1
	Bytes      = 2
	StartGroup = 3
	EndGroup   = 4
	Fixed32    = 5
)

// ReadVarint reads a varint at b[i:], returning it and the index after it.
func ReadVarint(b []byte, i int) (uint64, int, error) {
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

// ReadLength reads a length prefix at b[i:] and returns the bounds
// [start,end) of the bytes it announces.
func ReadLength(b []byte, i int) (int, int, error) {
	v, i, err := ReadVarint(b, i)
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

// Skip returns the index after the field whose tag starts at b[i:], groups
// included, with the generated decoders' rules for what is an error.
func Skip(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		tag, j, err := ReadVarint(b, i)
		if err != nil {
			return 0, err
		}
		i = j
		switch tag & 7 {
		case Varint:
			// Bounded as any varint: more than ten bytes overflow, as
			// the generated decoders say.
			_, j, err := ReadVarint(b, i)
			if err != nil {
				return 0, err
			}
			i = j
		case Fixed64:
			i += 8
		case Bytes:
			v, j, err := ReadVarint(b, i)
			if err != nil {
				return 0, err
			}
			n := int(v)
			i = j
			if n < 0 {
				return 0, ErrInvalidLength
			}
			i += n
		case StartGroup:
			depth++
		case EndGroup:
			if depth == 0 {
				return 0, ErrEndGroup
			}
			depth--
		case Fixed32:
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

// Field reads the field at the start of message b. For a length-delimited
// field (wire type Bytes) val is its content, aliasing b; for other wire
// types val is nil. rest is what follows the field. A field number of 0, a
// stray end of group and anything Skip rejects are errors.
func Field(b []byte) (num int, wireType int, val, rest []byte, err error) {
	tag, i, err := ReadVarint(b, 0)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	num, wireType = int(tag>>3), int(tag&7)
	if int32(tag>>3) <= 0 || tag>>3 > 1<<29-1 {
		return 0, 0, nil, nil, ErrIllegalTag
	}
	if wireType == Bytes {
		s, e, err := ReadLength(b, i)
		if err != nil {
			return 0, 0, nil, nil, err
		}
		return num, wireType, b[s:e], b[e:], nil
	}
	end, err := Skip(b, 0)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	return num, wireType, nil, b[end:], nil
}

// BytesFields calls f for every length-delimited field of message b, in
// order, and stops at the first malformed field. Fields of other wire types
// are skipped.
func BytesFields(b []byte, f func(num int, val []byte)) error {
	for len(b) > 0 {
		num, wt, val, rest, err := Field(b)
		if err != nil {
			return err
		}
		if wt == Bytes {
			f(num, val)
		}
		b = rest
	}
	return nil
}

// AppendBytes appends length-delimited field num holding val to dst.
func AppendBytes(dst []byte, num int, val []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(num)<<3|Bytes)
	dst = binary.AppendUvarint(dst, uint64(len(val)))
	return append(dst, val...)
}
