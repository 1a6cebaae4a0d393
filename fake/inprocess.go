package fake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/kubego/kubego/rest"
)

// InProcessHost is the Host of the Configs InProcessConfig returns. No
// name of the reserved .invalid domain resolves, so such a Config can never
// reach a real server by mistake.
const InProcessHost = "http://fake.in-process.invalid"

// ErrClosed is returned (wrapped) by the requests of an InProcessConfig
// made after Server.Close, as a connection refused by a stopped server.
var ErrClosed = errors.New("fake: server closed")

// ErrClientHungUp is what the server's writes of a response return once
// its client has closed the body or cancelled the request.
var ErrClientHungUp = errors.New("fake: the in-process client closed the response body")

// InProcessConfig returns a fresh rest.Config whose requests the server
// serves in the calling process: no listener, no socket, no TLS and no
// HTTP framing. Each request runs the server's handler in a goroutine of
// its own; a response the handler writes without flushing comes back
// whole, and one it flushes (a watch) streams from the first flush on.
// Closing a response body, or cancelling a request's context, cancels the
// handler's context and fails its further writes with ErrClientHungUp, as
// a client hanging up does. It can be called before or after Config and
// any number of times; it does not start the listener. After Close, every
// request fails with an error wrapping ErrClosed.
//
// Nothing in the path waits on the network, so clients, informers,
// controllers and whole Managers built from it run inside a
// testing/synctest bubble, where time is fake: create the Server in the
// bubble too (its watches' timers and channels must belong to it), and
// Close it (or cancel every watch) before the bubble ends.
//
// The Config's transport is the in-process one, set through
// WrapTransport: a wrapper set by the caller must keep calling the
// transport it is given (as rest documents). What the client's own chain
// adds below WrapTransport (credentials, impersonation headers, the
// configured UserAgent) does not reach the fake, which authenticates
// nobody and reads the User-Agent only to name a write's field manager
// when the request names none: it gets rest.DefaultUserAgent().
func (s *Server) InProcessConfig() *rest.Config {
	return &rest.Config{
		Host:          InProcessHost,
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return inProcessRT{s: s} },
	}
}

// inProcessRT serves a request with the server's handler in this process.
type inProcessRT struct{ s *Server }

func (t inProcessRT) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case <-t.s.closed:
		closeBody(r)
		return nil, fmt.Errorf("%s %s: %w", r.Method, r.URL.Redacted(), ErrClosed)
	default:
	}
	if err := r.Context().Err(); err != nil {
		closeBody(r)
		return nil, err
	}
	ctx, cancel := context.WithCancel(r.Context())
	sr := r.Clone(ctx)
	sr.RequestURI = r.URL.RequestURI()
	sr.RemoteAddr = "127.0.0.1:1"
	sr.Proto, sr.ProtoMajor, sr.ProtoMinor = "HTTP/1.1", 1, 1
	if sr.Host == "" {
		sr.Host = r.URL.Host
	}
	if sr.Header.Get("User-Agent") == "" {
		sr.Header.Set("User-Agent", rest.DefaultUserAgent())
	}
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	w := &inProcessWriter{header: http.Header{}, req: r, ctx: ctx, cancel: cancel, ready: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.fail(fmt.Errorf("fake: handler panicked: %v", p))
			}
			sr.Body.Close()
		}()
		t.s.ServeHTTP(w, sr)
		w.finish()
	}()
	select {
	case <-w.ready:
	case <-r.Context().Done():
		cancel()
		return nil, r.Context().Err()
	}
	if w.err != nil {
		cancel()
		return nil, w.err
	}
	return w.resp, nil
}

func closeBody(r *http.Request) {
	if r.Body != nil {
		r.Body.Close()
	}
}

// inProcessWriter is the http.ResponseWriter and http.Flusher of one
// in-process request. Until ready is closed only the handler's goroutine
// uses it; resp and err are set before ready is closed.
type inProcessWriter struct {
	header http.Header
	req    *http.Request
	ctx    context.Context // the handler's; ends when the client hangs up
	cancel context.CancelFunc

	code  int
	buf   bytes.Buffer
	pw    *io.PipeWriter // set by the first Flush: the body streams
	resp  *http.Response
	err   error
	ready chan struct{}
	once  sync.Once
}

func (w *inProcessWriter) Header() http.Header { return w.header }

func (w *inProcessWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *inProcessWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.pw != nil {
		return w.pw.Write(p)
	}
	if w.ctx.Err() != nil {
		return 0, ErrClientHungUp
	}
	return w.buf.Write(p)
}

// Flush sends the response now, its body streaming from here on.
func (w *inProcessWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if w.pw != nil {
		return
	}
	pr, pw := io.Pipe()
	w.pw = pw
	// A client that cancels instead of closing the body hangs up too.
	context.AfterFunc(w.ctx, func() { pr.CloseWithError(ErrClientHungUp) })
	w.respond(&streamBody{pr: pr, cancel: w.cancel}, -1)
	if w.buf.Len() > 0 {
		_, _ = pw.Write(w.buf.Bytes())
		w.buf.Reset()
	}
}

// finish ends the response after the handler returned.
func (w *inProcessWriter) finish() {
	if w.pw != nil {
		w.pw.Close()
		return
	}
	w.WriteHeader(http.StatusOK)
	w.respond(&bufferBody{Reader: bytes.NewReader(w.buf.Bytes()), cancel: w.cancel}, int64(w.buf.Len()))
}

func (w *inProcessWriter) fail(err error) {
	if w.pw != nil {
		w.pw.CloseWithError(err)
		return
	}
	w.once.Do(func() { w.err = err; close(w.ready) })
}

func (w *inProcessWriter) respond(body io.ReadCloser, length int64) {
	h := w.header.Clone()
	if length >= 0 {
		h.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	w.once.Do(func() {
		w.resp = &http.Response{
			Status: strconv.Itoa(w.code) + " " + http.StatusText(w.code), StatusCode: w.code,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: body, ContentLength: length, Request: w.req,
		}
		close(w.ready)
	})
}

// streamBody is a flushed response's body: closing it hangs up.
type streamBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
}

func (b *streamBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *streamBody) Close() error {
	b.cancel()
	b.pr.CloseWithError(ErrClientHungUp)
	return nil
}

// bufferBody is a whole response's body.
type bufferBody struct {
	*bytes.Reader
	cancel context.CancelFunc
}

func (b *bufferBody) Close() error { b.cancel(); return nil }
