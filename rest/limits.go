package rest

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

const (
	defaultMaxResponseBytes      = 512 << 20
	defaultMaxGzipRatio          = 200
	defaultResponseHeaderTimeout = 2 * time.Minute
	defaultBodyProgressTimeout   = time.Minute
	defaultMaxRetryWait          = time.Minute

	// minBodyProgress is how many bytes of a body read whole each window
	// of ResponseBodyProgressTimeout must bring (unless the body ends in
	// it): about a kilobyte a second at the default window, far below any
	// link a cluster is managed over, yet it turns a body trickled out a
	// byte at a time into a failure.
	minBodyProgress = 64 << 10

	// gzipRatioFloor is how many decompressed bytes a body may reach before
	// MaxGzipRatio is checked: small bodies of repeated text compress far
	// better than lists of objects, and cost nothing.
	gzipRatioFloor = 1 << 20
)

// Names of the limits a *LimitError reports: the Config fields that set them.
const (
	LimitResponseBytes         = "MaxResponseBytes"
	LimitGzipRatio             = "MaxGzipRatio"
	LimitResponseHeaderTimeout = "ResponseHeaderTimeout"
	LimitBodyProgressTimeout   = "ResponseBodyProgressTimeout"
)

// ErrLimitExceeded is wrapped by every *LimitError.
var ErrLimitExceeded = errors.New("rest: response exceeds a configured limit")

// LimitError reports a response that broke one of the Config's limits.
// Limit is the name of the Config field that sets it (one of the Limit…
// constants) and Max its value in effect: bytes for MaxResponseBytes, a
// ratio for MaxGzipRatio, nanoseconds for ResponseHeaderTimeout and
// ResponseBodyProgressTimeout. It wraps ErrLimitExceeded. A LimitError of
// ResponseHeaderTimeout comes wrapped in a *TransportError; the others come
// as they are (or in a watch's Err).
type LimitError struct {
	Limit string
	Max   int64
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitResponseHeaderTimeout:
		return fmt.Sprintf("rest: no response headers within %s (Config.%s)", time.Duration(e.Max), e.Limit)
	case LimitBodyProgressTimeout:
		return fmt.Sprintf("rest: response body stalled: less than %d KiB in %s (Config.%s)", minBodyProgress>>10, time.Duration(e.Max), e.Limit)
	case LimitGzipRatio:
		return fmt.Sprintf("rest: gzip response body expands more than %d times (Config.%s)", e.Max, e.Limit)
	}
	return fmt.Sprintf("rest: response body larger than %d bytes (Config.%s)", e.Max, e.Limit)
}

// Unwrap returns ErrLimitExceeded.
func (e *LimitError) Unwrap() error { return ErrLimitExceeded }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gunzipReader decompresses a gzip body, opening the gzip stream at the
// first Read (so that opening a response never waits for body bytes: a
// compressed watch may send its first bytes much later), and fails once
// the output outgrows ratio times the input (past gzipRatioFloor).
type gunzipReader struct {
	raw   countingReader
	zr    *gzip.Reader
	out   int64
	ratio int64 // <= 0: unchecked
	err   error // sticky
}

func (g *gunzipReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(&g.raw)
		if err != nil {
			g.err = gzipErr(err) // io.EOF: an empty body
			return 0, g.err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	g.out += int64(n)
	if g.ratio > 0 && g.out > gzipRatioFloor && g.out > g.ratio*g.raw.n {
		g.err = &LimitError{Limit: LimitGzipRatio, Max: g.ratio}
		return n, g.err
	}
	return n, gzipErr(err)
}

// gzipErr makes a *DecodeError of a malformed gzip stream; other errors
// (io.EOF, a transport failure, a truncated body) are returned as they are.
func gzipErr(err error) error {
	var ce flate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce) {
		return &DecodeError{ContentType: "gzip", Err: err}
	}
	return err
}

// Chunk sizes of readAllLimited: the first chunk of a body of unknown
// length, and the size the chunks stop doubling at.
const (
	firstChunk = 4 << 10
	maxChunk   = 8 << 20
)

// readAllLimited reads r to its end, failing with a *LimitError once it has
// given more than limit bytes. size is the body's announced length (-1:
// unknown); one within limit sizes the buffer once, so such a body is read
// without a copy (a server that announces more than it sends costs at most
// limit, as one that never stops does). Otherwise the body is read into
// chunks that double up to maxChunk, never reallocated, and joined once
// at its end: a body that breaks the limit costs limit plus one chunk, not
// the doubled buffers of a growing slice with their garbage.
func readAllLimited(r io.Reader, limit, size int64) ([]byte, error) {
	if size >= 0 && size <= limit {
		// One byte more, so that the end is seen without a second buffer.
		buf := make([]byte, 0, size+1)
		return readChunks(r, limit, buf)
	}
	return readChunks(r, limit, make([]byte, 0, min(firstChunk, limit+1)))
}

// readChunks reads r into first and, once it is full, further chunks.
func readChunks(r io.Reader, limit int64, first []byte) ([]byte, error) {
	chunks := [][]byte{first}
	var total int64
	for {
		cur := &chunks[len(chunks)-1]
		if len(*cur) == cap(*cur) {
			// The next chunk: double the last, up to maxChunk, and no
			// more than needed to see limit+1 bytes.
			next := min(max(int64(cap(*cur))*2, firstChunk), maxChunk, limit+1-total)
			if next <= 0 {
				return nil, &LimitError{Limit: LimitResponseBytes, Max: limit}
			}
			chunks = append(chunks, make([]byte, 0, next))
			cur = &chunks[len(chunks)-1]
		}
		n, err := r.Read((*cur)[len(*cur):cap(*cur)])
		*cur = (*cur)[:len(*cur)+n]
		total += int64(n)
		if total > limit {
			return nil, &LimitError{Limit: LimitResponseBytes, Max: limit}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i := range chunks {
		out = append(out, chunks[i]...)
		chunks[i] = nil
	}
	return out, nil
}

// progressBody fails a response body that does not keep coming: each
// window of d must bring at least minBodyProgress bytes (or the end of the
// body), so a large body that keeps coming is never cut however long it
// takes, while one that stops, or trickles slower than that, is. When a
// window runs short it cancels the attempt's context (which unblocks a Read
// in progress) and every later Read returns a *LimitError naming
// ResponseBodyProgressTimeout. Windows are timed on the wall clock. Read
// must not be called concurrently (io.Reader's rule); the timer's function
// runs on its own goroutine and only touches fired.
type progressBody struct {
	body  io.ReadCloser
	d     time.Duration
	limit *LimitError
	timer *time.Timer
	got   int // bytes in the current window
	fired atomic.Bool
}

// newProgressBody bounds body as above (d > 0). abort cancels the context
// body is read under.
func newProgressBody(body io.ReadCloser, abort context.CancelCauseFunc, d time.Duration) *progressBody {
	pb := &progressBody{body: body, d: d, limit: &LimitError{Limit: LimitBodyProgressTimeout, Max: int64(d)}}
	pb.timer = time.AfterFunc(d, func() {
		pb.fired.Store(true)
		abort(pb.limit)
	})
	return pb
}

func (pb *progressBody) Read(p []byte) (int, error) {
	if pb.fired.Load() {
		return 0, pb.limit
	}
	n, err := pb.body.Read(p)
	if pb.fired.Load() {
		// The window ran out during this Read: whatever it returned (the
		// context's cancellation, or bytes that came too late), the body
		// is now cut.
		return n, pb.limit
	}
	if pb.got += n; pb.got >= minBodyProgress {
		pb.got = 0
		pb.timer.Reset(pb.d)
	}
	return n, err
}

// Close stops the timer and closes the body.
func (pb *progressBody) Close() error {
	pb.timer.Stop()
	return pb.body.Close()
}
