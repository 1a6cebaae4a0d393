//go:build linux

package faults_test

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

// inProcess returns a config whose requests h serves in this process: no
// listener, no TLS, no HTTP framing. Each request runs h in a goroutine of
// its own; a response that h ends without flushing comes back whole from a
// buffer, and one that h flushes (a watch) streams through a pipe from the
// first flush on. Closing the response body cancels the request's context
// and fails h's further writes, as a client hanging up does.
func inProcess(h http.Handler) *rest.Config {
	return &rest.Config{
		Host:          "http://in-process.invalid",
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return inProcessRT{h} },
	}
}

type inProcessRT struct{ h http.Handler }

// errHungUp is what a handler's write returns once the client closed the
// response body.
var errHungUp = errors.New("in-process client closed the response body")

func (t inProcessRT) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	sr := r.Clone(ctx)
	sr.RequestURI = r.URL.RequestURI()
	sr.RemoteAddr = "127.0.0.1:1"
	sr.Proto, sr.ProtoMajor, sr.ProtoMinor = "HTTP/1.1", 1, 1
	if sr.Host == "" {
		sr.Host = r.URL.Host
	}
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	w := &inProcessWriter{header: http.Header{}, req: r, ctx: ctx, cancel: cancel, ready: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.fail(fmt.Errorf("handler panicked: %v", p))
			}
			sr.Body.Close()
		}()
		t.h.ServeHTTP(w, sr)
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

// inProcessWriter is the http.ResponseWriter and http.Flusher of one
// in-process request. Until ready is closed only the handler's goroutine
// uses it; resp and err are set before ready is closed.
type inProcessWriter struct {
	header http.Header
	req    *http.Request
	ctx    context.Context // the handler's; ends when the body is closed
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
	context.AfterFunc(w.ctx, func() { pr.CloseWithError(errHungUp) })
	w.respond(&streamBody{pr: pr, cancel: w.cancel}, -1)
	if w.buf.Len() > 0 {
		pw.Write(w.buf.Bytes())
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
	b.pr.CloseWithError(errHungUp)
	return nil
}

// bufferBody is a whole response's body.
type bufferBody struct {
	*bytes.Reader
	cancel context.CancelFunc
}

func (b *bufferBody) Close() error { b.cancel(); return nil }
