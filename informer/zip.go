package informer

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/kubego/kubego/internal/codec/wire"
)

// A compact store compresses the large encodings it keeps (ConfigMaps and
// Secrets of a few KiB, mostly): the metadata (field 1 of every
// Kubernetes object) stays as it is, so that the namespace, name,
// resourceVersion and labels are still read in place, and the rest of the
// encoding is deflated into one length-delimited field of a number no
// Kubernetes kind uses. A compressed encoding is therefore still a valid
// message, which moves between chunks like any other and which the
// readers of metadata walk without knowing; only a decode looks for the
// field, inflates it after a copy of the metadata into a buffer of the
// read's own, and decodes that.
//
// An encoding is compressed when what follows its metadata is at least
// zipMin bytes and deflating it saves at least an eighth of the whole.

const (
	// zipMin is the size of the part after the metadata from which an
	// encoding is compressed: a Pod's spec and status (a kilobyte or
	// so) stay below it, so reading a Pod costs no inflation.
	zipMin = 2 << 10
	// zipField is the number of the field holding the compressed rest:
	// the highest protobuf allows, which no Kubernetes kind uses. Its
	// content is the rest's length (a varint) and the rest deflated.
	zipField = 1<<29 - 1
	// zipLevel is flate's level: BestSpeed finds the repeats of
	// configuration text and Huffman-codes the rest, at the lowest cost
	// of encoding but Huffman-only's (which finds no repeats); higher
	// levels gain little and cost several times as much to encode, and
	// inflating costs about the same at every level.
	zipLevel = flate.BestSpeed
	// maxInflation bounds the length a compressed rest may claim per
	// byte of its deflated form (deflate's limit is 1032), so that
	// corrupt bytes cannot make a read allocate without bound.
	maxInflation = 1040
	// keepScratch is the largest scratch buffer a pooled deflater keeps.
	keepScratch = 1 << 20
)

// zipTag is the tag of zipField.
const zipTag = zipField<<3 | wire.Bytes

// errCorruptEntry is wrapped by the error of a stored encoding that cannot
// be decoded. The cache made every encoding it holds, so this means a bug,
// never bad input from a server.
var errCorruptEntry = errors.New("corrupt encoding in the compact cache")

// corruptError is the error of decoding a stored encoding: what failed
// and why. It wraps errCorruptEntry and the cause.
type corruptError struct {
	step string
	err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%v: %s: %v", errCorruptEntry, e.step, e.err)
}

func (e *corruptError) Unwrap() []error { return []error{errCorruptEntry, e.err} }

// deflater compresses encodings; deflaters pools them, since each holds
// the better part of a megabyte of compressor state.
type deflater struct {
	w *flate.Writer
	// in is scratch room for the encoding being compressed, out receives
	// the deflated rest and res the compressed encoding.
	in, out, res []byte
}

var deflaters = sync.Pool{New: func() any {
	z := &deflater{}
	z.w, _ = flate.NewWriter(z, zipLevel) // a valid level: no error
	return z
}}

// Write appends to out: the flate writer's destination.
func (z *deflater) Write(b []byte) (int, error) {
	z.out = append(z.out, b...)
	return len(b), nil
}

// release returns z to the pool, without scratch buffers grown past
// keepScratch.
func (z *deflater) release() {
	if cap(z.in) > keepScratch {
		z.in = nil
	}
	if cap(z.out) > keepScratch || cap(z.res) > keepScratch {
		z.out, z.res = nil, nil
	}
	deflaters.Put(z)
}

// squeeze returns the compressed form of raw, an object's encoding, built
// in z's buffers (valid until z is used again), or ok false when raw is
// better kept as it is: its rest shorter than zipMin, or compressing it
// saves less than an eighth.
func (z *deflater) squeeze(raw []byte) (zipped []byte, ok bool) {
	num, wt, _, rest, err := wire.Field(raw)
	if err != nil || num != 1 || wt != wire.Bytes || len(rest) < zipMin {
		return nil, false
	}
	head := raw[:len(raw)-len(rest)]
	z.out = binary.AppendUvarint(z.out[:0], uint64(len(rest)))
	z.w.Reset(z)
	if _, err := z.w.Write(rest); err != nil {
		return nil, false
	}
	if err := z.w.Close(); err != nil {
		return nil, false
	}
	size := len(head) + varintLen(zipTag) + varintLen(uint64(len(z.out))) + len(z.out)
	if size*8 > len(raw)*7 {
		return nil, false
	}
	z.res = append(z.res[:0], head...)
	z.res = binary.AppendUvarint(z.res, zipTag)
	z.res = binary.AppendUvarint(z.res, uint64(len(z.out)))
	z.res = append(z.res, z.out...)
	return z.res, true
}

// varintLen returns the length of v's varint encoding.
func varintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// inflater inflates compressed encodings; inflaters pools them, so that
// a read does not allocate a decompressor (some 40 KiB).
type inflater struct {
	src bytes.Reader
	r   io.ReadCloser // also a flate.Resetter
}

var inflaters = sync.Pool{New: func() any {
	f := &inflater{}
	f.r = flate.NewReader(&f.src)
	return f
}}

// plainOf returns the plain encoding of raw, a stored encoding: raw itself
// when it is not compressed, else a new buffer holding its metadata and
// its rest inflated, which nothing else refers to.
func plainOf(raw []byte) ([]byte, error) {
	num, wt, _, rest, err := wire.Field(raw)
	if err != nil || num != 1 || wt != wire.Bytes || len(rest) == 0 {
		return raw, nil // plain (or not a message: the decoder says so)
	}
	if tag, i := binary.Uvarint(rest); i <= 0 || tag != zipTag {
		return raw, nil
	}
	head := raw[:len(raw)-len(rest)]
	_, _, val, after, err := wire.Field(rest)
	switch {
	case err != nil:
		return nil, &corruptError{"reading the compressed field", err}
	case len(after) != 0:
		return nil, &corruptError{"reading the compressed field", fmt.Errorf("%d bytes after it", len(after))}
	}
	n, i := binary.Uvarint(val)
	if i <= 0 {
		return nil, &corruptError{"reading the compressed length", io.ErrUnexpectedEOF}
	}
	comp := val[i:]
	if n > uint64(len(comp))*maxInflation || n >= 1<<31 {
		return nil, &corruptError{"reading the compressed length", fmt.Errorf("%d bytes claimed from %d", n, len(comp))}
	}
	buf := make([]byte, len(head)+int(n))
	copy(buf, head)
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(comp)
	if err := f.r.(flate.Resetter).Reset(&f.src, nil); err != nil {
		return nil, &corruptError{"inflating", err}
	}
	if _, err := io.ReadFull(f.r, buf[len(head):]); err != nil {
		return nil, &corruptError{"inflating", err}
	}
	// The stream must end where the length said.
	var one [1]byte
	if k, err := f.r.Read(one[:]); k != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its length")
		}
		return nil, &corruptError{"inflating", err}
	}
	return buf, nil
}
