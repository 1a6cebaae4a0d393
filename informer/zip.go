package informer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/kubego/kubego/internal/codec/wire"
)

// A compact store compresses the large encodings it keeps (ConfigMaps and
// Secrets of a few KiB, mostly): the metadata (field 1 of every
// Kubernetes object) stays as it is, so that the namespace, name,
// resourceVersion and labels are still read in place, and the rest of the
// encoding is compressed into one length-delimited field of a number no
// Kubernetes kind uses. A compressed encoding is therefore still a valid
// message, which moves between chunks like any other and which the
// readers of metadata walk without knowing; only a decode looks for the
// field, decompresses it after a copy of the metadata into a buffer of
// the read's own, and decodes that.
//
// An encoding is compressed when what follows its metadata is at least
// zipMin bytes and compressing it saves at least an eighth of the whole.
// The format is a Zstandard frame at the encoder's fastest level with
// entropy coding of literals always on (text of a small alphabet without
// repeats still shrinks by a third), without checksum: the cache made
// every frame it holds. Against compress/flate at its fastest level it
// compresses in about half the time, decompresses two to four times as
// fast, and takes a little less room on configuration text (BenchmarkZip
// in zip_bench_test.go).

const (
	// zipMin is the size of the part after the metadata from which an
	// encoding is compressed: a Pod's spec and status (a kilobyte or
	// so) stay below it, so reading a Pod costs no decompression.
	zipMin = 2 << 10
	// zipField is the number of the field holding the compressed rest:
	// the highest protobuf allows, which no Kubernetes kind uses. Its
	// content is the rest's length (a varint) and the rest compressed
	// (one Zstandard frame).
	zipField = 1<<29 - 1
	// maxInflation bounds the length a compressed rest may claim per
	// byte of its compressed form, so that corrupt bytes cannot make a
	// read allocate without bound. Zstandard's own bound is far higher
	// (runs of one byte); the encodings of Kubernetes objects compress
	// by a factor of ten or so, and one that would claim more than this
	// is stored plain (see squeeze).
	maxInflation = 1040
	// zipWindow is the encoder's window: the farthest back a match may
	// reach, and the largest window the decoder accepts.
	zipWindow = 1 << 20
	// maxCoders bounds the encoders and decoders kept for the cache's
	// use (GOMAXPROCS of each, at most this many): an encoder holds
	// about 300 KiB, a decoder some 35 KiB.
	maxCoders = 4
	// keepScratch is the largest scratch buffer a pooled zipper keeps.
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

// coders are the Zstandard encoder and decoder of every compact store,
// made on first use: a program that never caches a large object pays for
// neither. EncodeAll and DecodeAll are safe for concurrent use; each
// waits for one of its maxCoders coders, and neither starts goroutines.
var coders = sync.OnceValues(func() (*zstd.Encoder, *zstd.Decoder) {
	n := min(runtime.GOMAXPROCS(0), maxCoders)
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithAllLitEntropyCompression(true),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(zipWindow),
		zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderConcurrency(n))
	if err != nil {
		enc = nil // constant options: not reached; nothing is compressed
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(n),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zipWindow),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		dec = nil // as above; a compressed read then fails typed
	}
	return enc, dec
})

// zipper holds the scratch room of compressing one encoding; zippers
// pools them.
type zipper struct {
	// in is room for the encoding being compressed, out receives the
	// rest's length and frame, and res the compressed encoding.
	in, out, res []byte
}

var zippers = sync.Pool{New: func() any { return new(zipper) }}

// release returns z to the pool, without scratch buffers grown past
// keepScratch.
func (z *zipper) release() {
	if cap(z.in) > keepScratch {
		z.in = nil
	}
	if cap(z.out) > keepScratch || cap(z.res) > keepScratch {
		z.out, z.res = nil, nil
	}
	zippers.Put(z)
}

// squeeze returns the compressed form of raw, an object's encoding, built
// in z's buffers (valid until z is used again), or ok false when raw is
// better kept as it is: its rest shorter than zipMin, or compressing it
// saves less than an eighth, or it shrinks more than maxInflation allows
// a read to trust.
func (z *zipper) squeeze(raw []byte) (zipped []byte, ok bool) {
	num, wt, _, rest, err := wire.Field(raw)
	if err != nil || num != 1 || wt != wire.Bytes || len(rest) < zipMin {
		return nil, false
	}
	enc, _ := coders()
	if enc == nil {
		return nil, false
	}
	head := raw[:len(raw)-len(rest)]
	z.out = binary.AppendUvarint(z.out[:0], uint64(len(rest)))
	lenLen := len(z.out)
	z.out = enc.EncodeAll(rest, z.out)
	frame := len(z.out) - lenLen
	size := len(head) + varintLen(zipTag) + varintLen(uint64(len(z.out))) + len(z.out)
	if size*8 > len(raw)*7 || uint64(len(rest)) > uint64(frame)*maxInflation {
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

// plainOf returns the plain encoding of raw, a stored encoding: raw itself
// when it is not compressed, else (own true) a new buffer holding its
// metadata and its rest decompressed, which nothing else refers to.
func plainOf(raw []byte) (plain []byte, own bool, err error) {
	num, wt, _, rest, err := wire.Field(raw)
	if err != nil || num != 1 || wt != wire.Bytes || len(rest) == 0 {
		return raw, false, nil // plain (or not a message: the decoder says so)
	}
	if tag, i := binary.Uvarint(rest); i <= 0 || tag != zipTag {
		return raw, false, nil
	}
	head := raw[:len(raw)-len(rest)]
	_, _, val, after, err := wire.Field(rest)
	switch {
	case err != nil:
		return nil, false, &corruptError{"reading the compressed field", err}
	case len(after) != 0:
		return nil, false, &corruptError{"reading the compressed field", fmt.Errorf("%d bytes after it", len(after))}
	}
	n, i := binary.Uvarint(val)
	if i <= 0 {
		return nil, false, &corruptError{"reading the compressed length", io.ErrUnexpectedEOF}
	}
	comp := val[i:]
	if n > uint64(len(comp))*maxInflation || n >= 1<<31 {
		return nil, false, &corruptError{"reading the compressed length", fmt.Errorf("%d bytes claimed from %d", n, len(comp))}
	}
	_, dec := coders()
	if dec == nil {
		return nil, false, &corruptError{"decompressing", errors.New("no Zstandard decoder")}
	}
	buf := make([]byte, len(head), len(head)+int(n))
	copy(buf, head)
	// The decoder writes into buf's room and no further (its cap limit):
	// a frame claiming more fails rather than allocating.
	out, err := dec.DecodeAll(comp, buf)
	switch {
	case err != nil:
		return nil, false, &corruptError{"decompressing", err}
	case len(out) != cap(buf):
		return nil, false, &corruptError{"decompressing", fmt.Errorf("%d bytes of the %d its length says", len(out)-len(head), n)}
	}
	return out, true, nil
}
