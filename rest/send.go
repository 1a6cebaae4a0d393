package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/clock"
)

// TransportError wraps a failure to get a response at all (refused
// connection, TLS failure, refused redirect, cancelled context). Unwrap
// gives the cause, so errors.Is(err, context.Canceled) and
// errors.As(err, new(*RedirectError)) work.
type TransportError struct {
	Method string
	// URL is the request URL without its query.
	URL string
	Err error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("rest: %s %s: %v", e.Method, e.URL, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// send builds and sends the request, retrying as retryDelay allows, and
// returns the final response (any status). The caller closes its body.
func (r *Request) send(ctx context.Context, watch bool) (*http.Response, error) {
	if r.err != nil {
		return nil, r.err
	}
	if watch && r.params.Get("watch") == "" {
		r.Param("watch", "true")
	}
	if r.timeout > 0 && !watch && r.params.Get("timeout") == "" {
		r.Param("timeout", r.timeout.String())
	}
	u, err := r.URL()
	if err != nil {
		return nil, err
	}
	proto := r.wantsProtobuf()
	eb, err := r.encodeBody(proto)
	if err != nil {
		return nil, err
	}
	accept := acceptJSON
	if proto {
		accept = acceptProtobuf
	}
	if r.accept != "" {
		accept = r.accept
	}
	idempotent := idempotentMethod(r.verb)
	replayable := eb.reader == nil
	target := u.String()
	shown := *u
	shown.RawQuery = ""
	r.secrets = r.c.newSecrets()
	ctx = withSecrets(ctx, r.secrets)

	var waited time.Duration
	for attempt := 0; ; attempt++ {
		if r.c.limiter != nil {
			if err := r.c.limiter.Wait(ctx); err != nil {
				return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: fmt.Errorf("waiting for the rate limiter: %w", err)}
			}
		}
		resp, err := r.attempt(ctx, target, accept, eb)
		if err != nil {
			return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: err}
		}
		if attempt < r.c.maxRetries {
			if delay, ok := r.c.retryDelay(resp, idempotent, replayable, r.c.clock.Now()); ok && waited+delay <= r.c.retryWait {
				fc := FlowControlOf(resp.Header)
				r.c.logger.Debug("retrying as the server asks", "method", r.verb, "url", shown.String(), "status", resp.StatusCode,
					"wait", delay, "flowSchemaUID", fc.FlowSchemaUID, "priorityLevelUID", fc.PriorityLevelUID)
				r.c.boundProgress(resp)
				drain(resp.Body)
				if err := clock.Sleep(ctx, r.c.clock, delay); err != nil {
					return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: err}
				}
				waited += delay
				continue
			}
		}
		return resp, nil
	}
}

// attempt sends the request once. The wait for the response headers is
// bounded by the client's header timeout; the context it adds lives until
// the response body is closed.
func (r *Request) attempt(ctx context.Context, target, accept string, eb encodedBody) (*http.Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(actx, r.verb, target, eb.newReader())
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	req.Header.Set("Accept", accept)
	if eb.contentType != "" && (eb.data != nil || eb.reader != nil) {
		req.Header.Set("Content-Type", eb.contentType)
	}
	if !r.c.noGzip && r.verb != http.MethodHead {
		// Asked for here rather than by the transport, which would
		// decompress without a bound: responseBody decompresses and
		// checks the ratio.
		req.Header.Set("Accept-Encoding", "gzip")
	}
	for k, v := range r.headers {
		req.Header[k] = append([]string(nil), v...)
	}
	// settled is set by whichever comes first: the headers or the
	// timeout. A timeout that fired fails the attempt even if the headers
	// came just after, since it cancelled the body's context.
	var settled atomic.Bool
	var timeout *LimitError
	if d := r.c.headerTimeout; d > 0 {
		timeout = &LimitError{Limit: LimitResponseHeaderTimeout, Max: int64(d)}
		timer := time.AfterFunc(d, func() {
			if settled.CompareAndSwap(false, true) {
				cancel(timeout)
			}
		})
		defer timer.Stop()
	}
	resp, err := r.c.http.Do(req)
	timedOut := !settled.CompareAndSwap(false, true)
	switch {
	case timedOut && (err == nil || ctx.Err() == nil):
		if err == nil {
			_ = resp.Body.Close()
		}
		cancel(nil)
		return nil, timeout
	case err != nil:
		cancel(nil)
		return nil, unwrapURLError(err)
	}
	resp.Body = &attemptBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// attemptBody is the body of one attempt's response: closing it ends the
// attempt's context; cancel ends it with a cause (see boundProgress).
type attemptBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *attemptBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// boundProgress makes resp's body fail once it stalls (see progressBody
// and Config.ResponseBodyProgressTimeout). It is applied to every body the
// client reads to its end itself (Do's body, error bodies, bodies drained
// before a retry), never to the bodies of Stream and Watch, whose silences
// are legitimate (a followed log, a quiet watch).
func (c *Client) boundProgress(resp *http.Response) {
	ab, ok := resp.Body.(*attemptBody)
	if c.bodyProgress <= 0 || !ok {
		return
	}
	resp.Body = newProgressBody(ab, ab.cancel, c.bodyProgress)
}

// unwrapURLError drops the *url.Error layer, whose message repeats the URL
// with its query.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// isCompressed reports whether resp's body was sent compressed, whether
// the transport has already decompressed it or not.
func isCompressed(resp *http.Response) bool { return resp.Uncompressed || stillGzipped(resp) }

// stillGzipped reports whether resp's body is gzip that the transport left
// compressed (it removes the header when it decompresses).
func stillGzipped(resp *http.Response) bool {
	return !resp.Uncompressed && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip")
}

// responseBody returns the response body, gunzipping it when the transport
// did not (the client asks for gzip itself, so the transport never does),
// with the client's MaxGzipRatio checked as it is read. It never waits for
// body bytes: the gzip header is read at the first Read.
func (c *Client) responseBody(resp *http.Response) io.ReadCloser {
	if !stillGzipped(resp) {
		return resp.Body
	}
	return struct {
		io.Reader
		io.Closer
	}{&gunzipReader{raw: countingReader{r: resp.Body}, ratio: c.gzipRatio}, resp.Body}
}

func (r *Request) target() errorTarget {
	return errorTarget{verb: r.verb, resource: schema.GroupResource{Group: r.group, Resource: r.resource}, name: r.name}
}

// errorFromResponse reads a bounded part of a non-2xx body and converts it.
func (r *Request) errorFromResponse(resp *http.Response) error {
	r.c.boundProgress(resp)
	rc := r.c.responseBody(resp)
	body, _ := io.ReadAll(io.LimitReader(rc, maxErrorBody))
	_ = rc.Close()
	return r.c.statusError(resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header, body, r.target(), r.secrets)
}

// readBody reads the whole (decompressed) body, at most the client's
// MaxResponseBytes and ResponseBodyProgressTimeout, and closes it. ctx is
// the request's: once it has ended the body is an error whatever the read
// returned, since a transport may end a read cut short by the context as
// if the body were complete (and an empty gzip stream reads as an empty
// body).
func (c *Client) readBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	c.boundProgress(resp)
	rc := c.responseBody(resp)
	defer rc.Close()
	size := resp.ContentLength // of what is read: unknown when gunzipped here
	if stillGzipped(resp) {
		size = -1
	}
	b, err := readAllLimited(rc, c.maxBody, size)
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		var le *LimitError
		var de *DecodeError
		if errors.As(err, &le) || errors.As(err, &de) {
			return nil, err
		}
		return nil, fmt.Errorf("rest: reading response body: %w", err)
	}
	return b, nil
}

func success(code int) bool { return code >= 200 && code < 300 }

// withTimeout applies d to ctx when positive.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
