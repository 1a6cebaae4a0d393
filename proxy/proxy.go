package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/kubego/kubego/rest"
)

// ErrInvalidTarget is wrapped by the error of a call whose Target cannot
// name a proxy URL.
var ErrInvalidTarget = errors.New("proxy: invalid target")

// Target is what a request is proxied to: a Pod or a Service, and a port.
// Make it with Pod or Service.
type Target struct {
	resource  string
	Namespace string
	Name      string
	// Port is a port number or name; empty means the first port the Pod's
	// containers or the Service declare.
	Port string
	// Scheme is "http" (the default when empty) or "https"; with https
	// the API server does not verify the backend's certificate.
	Scheme string
}

// Pod targets port of a Pod.
func Pod(namespace, name, port string) Target {
	return Target{resource: "pods", Namespace: namespace, Name: name, Port: port}
}

// Service targets port of a Service (one of its ready endpoints, picked by
// the API server).
func Service(namespace, name, port string) Target {
	return Target{resource: "services", Namespace: namespace, Name: name, Port: port}
}

// segment is the name segment of the URL: [scheme:]name[:port].
func (t Target) segment() string {
	s := t.Name
	if t.Port != "" || (t.Scheme != "" && t.Scheme != "http") {
		s += ":" + t.Port
	}
	if t.Scheme != "" && t.Scheme != "http" {
		s = t.Scheme + ":" + s
	}
	return s
}

func (t Target) check() error {
	switch {
	case t.resource == "":
		return fmt.Errorf("%w: make a Target with Pod or Service", ErrInvalidTarget)
	case t.Namespace == "" || t.Name == "":
		return fmt.Errorf("%w: Namespace and Name are required", ErrInvalidTarget)
	case strings.Contains(t.Name, ":") || strings.Contains(t.Port, ":"):
		return fmt.Errorf("%w: name and port must not contain ':'", ErrInvalidTarget)
	case t.Scheme != "" && t.Scheme != "http" && t.Scheme != "https":
		return fmt.Errorf("%w: scheme %q", ErrInvalidTarget, t.Scheme)
	}
	return nil
}

// Call is one proxied request.
type Call struct {
	// Method is the HTTP method; empty means GET.
	Method string
	// Path is the path on the backend ("/metrics"); empty means "/".
	// Empty segments and a trailing slash are dropped; a segment may not
	// be "." or ".." nor contain '%'.
	Path string
	// Query is sent as the backend request's query.
	Query url.Values
	// Header holds extra request headers (Content-Type of a Body, for
	// example). Credentials are the Client's; an Authorization header
	// here would be the API server's to read, not the backend's.
	Header http.Header
	// Body, when set, is streamed as the request body. It is read once:
	// such a request is never retried.
	Body io.Reader
}

// Do sends call to target through the API server and returns the body of
// the backend's 2xx answer for the caller to read and close. A context that
// ends closes the body.
func Do(ctx context.Context, c *rest.Client, target Target, call Call) (io.ReadCloser, error) {
	if err := target.check(); err != nil {
		return nil, err
	}
	method := call.Method
	if method == "" {
		method = http.MethodGet
	}
	parts := []string{"proxy"}
	for seg := range strings.SplitSeq(call.Path, "/") {
		if seg != "" {
			parts = append(parts, seg)
		}
	}
	req := c.Verb(method).Namespace(target.Namespace).Resource(target.resource).Name(target.segment()).SubResource(parts...)
	for k, vs := range call.Query {
		for _, v := range vs {
			req.Param(k, v)
		}
	}
	if call.Body != nil {
		req.Body(call.Body)
	}
	// The backend's answer is passed through as is: whatever it is, not
	// an API object.
	req.Accept("*/*")
	for k, v := range call.Header {
		req.SetHeader(k, v...)
	}
	return req.Stream(ctx)
}

// Get is Do with a GET of path.
func Get(ctx context.Context, c *rest.Client, target Target, path string) (io.ReadCloser, error) {
	return Do(ctx, c, target, Call{Path: path})
}

// Post is Do with a POST of body (of the given content type) to path.
func Post(ctx context.Context, c *rest.Client, target Target, path, contentType string, body io.Reader) (io.ReadCloser, error) {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return Do(ctx, c, target, Call{Method: http.MethodPost, Path: path, Header: h, Body: body})
}
