package rest

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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

	for attempt := 0; ; attempt++ {
		if r.c.limiter != nil {
			if err := r.c.limiter.Wait(ctx); err != nil {
				return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: fmt.Errorf("waiting for the rate limiter: %w", err)}
			}
		}
		req, err := http.NewRequestWithContext(ctx, r.verb, target, eb.newReader())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
		}
		req.Header.Set("Accept", accept)
		if eb.contentType != "" && (eb.data != nil || eb.reader != nil) {
			req.Header.Set("Content-Type", eb.contentType)
		}
		for k, v := range r.headers {
			req.Header[k] = append([]string(nil), v...)
		}
		resp, err := r.c.http.Do(req)
		if err != nil {
			return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: unwrapURLError(err)}
		}
		if attempt < r.c.maxRetries {
			if delay, ok := r.c.retryDelay(resp, idempotent, replayable, r.c.clock.Now()); ok {
				drain(resp.Body)
				if err := clock.Sleep(ctx, r.c.clock, delay); err != nil {
					return nil, &TransportError{Method: r.verb, URL: shown.String(), Err: err}
				}
				continue
			}
		}
		return resp, nil
	}
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
// did not.
func responseBody(resp *http.Response) (io.ReadCloser, error) {
	if !stillGzipped(resp) {
		return resp.Body, nil
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		_ = resp.Body.Close()
		return nil, &DecodeError{ContentType: "gzip", Err: err}
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, resp.Body}, nil
}

func (r *Request) target() errorTarget {
	return errorTarget{verb: r.verb, resource: schema.GroupResource{Group: r.group, Resource: r.resource}, name: r.name}
}

// errorFromResponse reads a bounded part of a non-2xx body and converts it.
func (r *Request) errorFromResponse(resp *http.Response) error {
	body, _ := readBody(resp, maxErrorBody)
	return r.c.statusError(resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header, body, r.target())
}

// readBody reads the (decompressed) body, at most limit bytes when limit >
// 0, and closes it.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	rc, err := responseBody(resp)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var rd io.Reader = rc
	if limit > 0 {
		rd = io.LimitReader(rc, limit)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return b, fmt.Errorf("rest: reading response body: %w", err)
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
