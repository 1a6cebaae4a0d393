package rest

import (
	"encoding/binary"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubego/kubego/internal/codec/wire"
)

var (
	// ErrFrameTooLarge is wrapped in the error of a watch whose next event
	// is larger than Config.Limits.MaxFrameBytes.
	ErrFrameTooLarge = errors.New("watch event larger than the frame limit")
	// ErrTruncated is wrapped in the error of a watch whose stream ended in
	// the middle of an event.
	ErrTruncated = errors.New("stream ended in the middle of an event")
	// ErrUnknownEventType is wrapped in the error of a watch that received
	// an event type other than ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	ErrUnknownEventType = errors.New("unknown watch event type")
	// ErrInvalidObject is wrapped in the error of a watch that received an
	// ADDED, MODIFIED or DELETED event whose object has no name (null or
	// empty).
	ErrInvalidObject = errors.New("invalid watch event object")
)

// frameReader yields the raw watch events of a stream, one at a time. next
// returns io.EOF when the stream ends cleanly between events. The returned
// bytes are valid until the next call.
type frameReader interface {
	next() (eventType string, object []byte, err error)
}

// maxJSONRead bounds one read of the JSON frame reader, so the frame limit is
// overshot by at most this much buffered data.
const maxJSONRead = 32 << 10

// jsonFrames reads concatenated (usually newline-separated) JSON
// metav1.WatchEvent objects.
type jsonFrames struct {
	dec *stdjson.Decoder
	src *boundedReader
}

// boundedReader counts what it hands the JSON decoder and fails once the
// bytes read past the end of the last decoded event exceed max.
type boundedReader struct {
	r      io.Reader
	read   int64
	max    int64
	offset func() int64
	err    error // last error of r, to tell transport failures from syntax
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read-b.offset() > b.max {
		return 0, ErrFrameTooLarge
	}
	if len(p) > maxJSONRead {
		p = p[:maxJSONRead]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

func newJSONFrames(r io.Reader, max int) *jsonFrames {
	src := &boundedReader{r: r, max: int64(max)}
	dec := stdjson.NewDecoder(src)
	src.offset = dec.InputOffset
	return &jsonFrames{dec: dec, src: src}
}

type jsonEvent struct {
	Type   string             `json:"type"`
	Object stdjson.RawMessage `json:"object"`
}

func (f *jsonFrames) next() (string, []byte, error) {
	var ev jsonEvent
	err := f.dec.Decode(&ev)
	switch {
	case err == nil:
		return ev.Type, ev.Object, nil
	case err == io.EOF:
		return "", nil, io.EOF
	case errors.Is(err, ErrFrameTooLarge):
		return "", nil, &DecodeError{ContentType: mediaJSON, Err: ErrFrameTooLarge}
	case f.src.err != nil && errors.Is(err, f.src.err):
		return "", nil, err
	case err == io.ErrUnexpectedEOF:
		return "", nil, &DecodeError{ContentType: mediaJSON, Err: ErrTruncated}
	}
	return "", nil, &DecodeError{ContentType: mediaJSON, Err: err}
}

// protoFrames reads length-delimited protobuf metav1.WatchEvent frames: a
// 4-byte big-endian length, then that many bytes.
type protoFrames struct {
	r   io.Reader
	max int
	buf []byte
}

func newProtoFrames(r io.Reader, max int) *protoFrames {
	return &protoFrames{r: r, max: max}
}

func (f *protoFrames) next() (string, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return "", nil, f.readErr(err)
	}
	size := binary.BigEndian.Uint32(hdr[:])
	if uint64(size) > uint64(f.max) {
		return "", nil, &DecodeError{ContentType: mediaProtobuf, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, size, f.max)}
	}
	frame, err := f.read(int(size))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", nil, f.readErr(err)
	}
	typ, raw, err := wire.ReadWatchEvent(frame)
	if err != nil {
		return "", nil, &DecodeError{ContentType: mediaProtobuf, Err: fmt.Errorf("malformed watch event: %w", err)}
	}
	// raw aliases f.buf: it is valid until the next call, which is all the
	// decoder needs (decoding copies what it keeps).
	return typ, raw, nil
}

// frameGrowStep is the most a frame's buffer grows ahead of the bytes
// that arrived: a header claiming a large frame costs memory only as the
// frame's bytes come.
const frameGrowStep = 1 << 20

// read reads a frame of size bytes into f.buf, growing it as the bytes
// arrive.
func (f *protoFrames) read(size int) ([]byte, error) {
	if cap(f.buf) >= size {
		frame := f.buf[:size]
		_, err := io.ReadFull(f.r, frame)
		return frame, err
	}
	buf := f.buf[:0]
	for len(buf) < size {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(size, max(2*cap(buf), len(buf)+frameGrowStep)))
			copy(grown, buf)
			buf = grown
		}
		n, err := io.ReadFull(f.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			f.buf = buf
			return nil, err
		}
	}
	f.buf = buf
	return buf, nil
}

func (f *protoFrames) readErr(err error) error {
	switch err {
	case io.EOF:
		return io.EOF
	case io.ErrUnexpectedEOF:
		return &DecodeError{ContentType: mediaProtobuf, Err: ErrTruncated}
	}
	return err
}
