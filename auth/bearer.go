package auth

import (
	"context"
	"io"
	"net/http"
	"strings"
)

// tokenSource is what the bearer round tripper needs from a credential.
type tokenSource interface {
	// token returns the token to send now ("" sends none).
	token(ctx context.Context) (string, error)
	// refresh is told that used was rejected with 401. It fetches the
	// credential again (unless another caller already did) and returns the
	// token to use from now on.
	refresh(ctx context.Context, used string) (string, error)
}

// bearerTransport adds a bearer token to requests and retries once on 401
// when the token changed and the body can be replayed.
type bearerTransport struct {
	src  tokenSource
	next http.RoundTripper
}

func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	ctx := req.Context()
	tok, err := b.src.token(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := b.next.RoundTrip(withBearer(req, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	fresh, ferr := b.src.refresh(ctx, tok)
	if ferr != nil || fresh == tok || !replayable(req) {
		return resp, nil
	}
	retry := withBearer(req, fresh)
	if req.GetBody != nil {
		body, berr := req.GetBody()
		if berr != nil {
			return resp, nil
		}
		retry.Body = body
	}
	discard(resp)
	return b.next.RoundTrip(retry)
}

// withBearer returns a copy of req carrying tok ("" leaves the header
// unset). The copy is shallow except for the header map, which is new; the
// header values are shared and never modified.
func withBearer(req *http.Request, tok string) *http.Request {
	r := new(http.Request)
	*r = *req
	r.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		r.Header[k] = v
	}
	if tok != "" {
		r.Header["Authorization"] = []string{"Bearer " + tok}
	}
	return r
}

// replayable reports whether req can be sent a second time.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// discard drains a little of a response body, so the connection can be
// reused, and closes it.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// validToken reports whether tok can be sent in a header.
func validToken(tok string) bool {
	return !strings.ContainsAny(tok, "\r\n\x00")
}

// BearerToken is a static bearer token. Its String and GoString methods
// never show the token.
type BearerToken struct {
	Token string
}

// WrapTransport implements rest.Authenticator. Requests that already carry
// an Authorization header are passed on unchanged.
func (b BearerToken) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return &bearerTransport{src: staticToken(b.Token), next: rt}
}

func (b BearerToken) String() string   { return "auth.BearerToken{<redacted>}" }
func (b BearerToken) GoString() string { return b.String() }

type staticToken string

func (s staticToken) token(context.Context) (string, error) { return string(s), nil }
func (s staticToken) refresh(context.Context, string) (string, error) {
	return string(s), nil
}

// Basic is HTTP basic authentication. Its String and GoString methods never
// show the password.
type Basic struct {
	Username string
	Password string
}

// WrapTransport implements rest.Authenticator. Requests that already carry
// an Authorization header are passed on unchanged.
func (b Basic) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get("Authorization") != "" {
			return rt.RoundTrip(req)
		}
		r := req.Clone(req.Context())
		r.SetBasicAuth(b.Username, b.Password)
		return rt.RoundTrip(r)
	})
}

func (b Basic) String() string {
	return "auth.Basic{Username: " + b.Username + ", Password: <redacted>}"
}
func (b Basic) GoString() string { return b.String() }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
