package rest

import (
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// Result is the outcome of Do: the response body and status, or an error.
// It is a value; its methods may be called any number of times. The bytes
// returned by Raw belong to the Result and must not be modified.
type Result struct {
	c           *Client
	body        []byte
	statusCode  int
	contentType string
	warnings    []Warning
	secrets     *secrets // redacted from a Status decoded by Into
	flow        FlowControl
	err         error
}

// FlowControl returns what API Priority and Fairness said about the
// response (the last one, after retries); zero when there was none.
func (r Result) FlowControl() FlowControl { return r.flow }

// ErrEmptyBody is returned by Result.Into when the response had no body.
var ErrEmptyBody = errors.New("rest: response has no body")

// Do sends the request and reads the whole response. A non-2xx response
// becomes an *apierrors.StatusError in Result.Error; a failure to talk to
// the server a *TransportError; a request that could not be built wraps
// ErrInvalidRequest.
func (r *Request) Do(ctx context.Context) Result {
	timeout := r.c.timeout
	if r.timeout > 0 {
		timeout = r.timeout
	}
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	resp, err := r.send(ctx, false)
	if err != nil {
		return Result{c: r.c, err: err}
	}
	res := Result{
		c:           r.c,
		statusCode:  resp.StatusCode,
		contentType: resp.Header.Get("Content-Type"),
		warnings:    r.c.handleWarnings(resp.Header, r.secrets),
		secrets:     r.secrets,
		flow:        FlowControlOf(resp.Header),
	}
	if !success(resp.StatusCode) {
		res.err = r.errorFromResponse(resp)
		return res
	}
	res.body, res.err = r.c.readBody(ctx, resp)
	return res
}

// DoRaw sends the request and returns the response body. On a non-2xx
// response the error is an *apierrors.StatusError.
func (r *Request) DoRaw(ctx context.Context) ([]byte, error) {
	return r.Do(ctx).Raw()
}

// Stream sends the request and returns the response body for the caller to
// read and close (pod logs, for example). The request's Timeout, if any,
// bounds the whole stream; Config.Timeout does not apply. A non-2xx response
// is returned as an *apierrors.StatusError.
func (r *Request) Stream(ctx context.Context) (io.ReadCloser, error) {
	ctx, cancel := withTimeout(ctx, r.timeout)
	resp, err := r.send(ctx, false)
	if err != nil {
		cancel()
		return nil, err
	}
	r.c.handleWarnings(resp.Header, r.secrets)
	if !success(resp.StatusCode) {
		defer cancel()
		return nil, r.errorFromResponse(resp)
	}
	return &cancelOnClose{ReadCloser: r.c.responseBody(resp), cancel: cancel}, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// Into decodes the body into obj according to the response's Content-Type
// (JSON or protobuf). Go types not registered in the scheme (CRD types)
// decode from JSON. An unstructured obj also accepts protobuf (decoded
// through the scheme and converted). It returns the request's error if
// there was one, ErrEmptyBody, or a *DecodeError.
func (r Result) Into(obj runtime.Object) error {
	if r.err != nil {
		return r.err
	}
	if isNil(obj) {
		return fmt.Errorf("%w: Into needs a non-nil object", ErrInvalidRequest)
	}
	if len(r.body) == 0 {
		return ErrEmptyBody
	}
	err := r.c.decode(r.body, r.contentType, obj)
	if se, ok := err.(*apierrors.StatusError); ok {
		r.secrets.redactStatus(&se.ErrStatus)
	}
	return err
}

// Raw returns the response body and the request's error.
func (r Result) Raw() ([]byte, error) { return r.body, r.err }

// StatusCode is the HTTP status of the final response, 0 if none came.
func (r Result) StatusCode() int { return r.statusCode }

// ContentType is the Content-Type header of the response.
func (r Result) ContentType() string { return r.contentType }

// Error is the request's error, nil on a 2xx response.
func (r Result) Error() error { return r.err }

// Warnings are the Warning headers of the response, already passed to the
// WarningHandler.
func (r Result) Warnings() []Warning { return r.warnings }
