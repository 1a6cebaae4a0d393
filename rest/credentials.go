package rest

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"

	"github.com/kubego/kubego/internal/secret"
)

// TokenSource supplies the bearer tokens of an Authenticator made by
// BearerAuth. Implementations must be safe for concurrent use and must never
// log or return a token in an error.
type TokenSource interface {
	// Token returns the token to send now; "" sends none.
	Token(ctx context.Context) (string, error)
	// Refresh is told that rejected was answered 401 Unauthorized. It
	// fetches the credential again, unless another caller already replaced
	// rejected, and returns the token to use from now on.
	Refresh(ctx context.Context, rejected string) (string, error)
}

// BearerAuth returns an Authenticator that sends "Authorization: Bearer
// <token>" with src's token on every request that does not carry an
// Authorization header already. On a 401 it asks src to Refresh once; if
// that yields a different token and the request body can be replayed (no
// body, or GetBody set) the request is sent once more with it, otherwise
// the 401 is returned and later requests use the new token. A Token error
// fails the request with that error.
//
// It is the one bearer-token implementation: Config.BearerToken and
// Config.BearerTokenFile use it, and so do credential plugins (package auth).
func BearerAuth(src TokenSource) Authenticator { return bearerAuth{src: src} }

type bearerAuth struct{ src TokenSource }

func (a bearerAuth) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return &bearerRT{src: a.src, next: rt}
}

// bearerRT adds src's token. When host is set it adds it only to requests
// for that host, as defence in depth behind the redirect policy.
type bearerRT struct {
	host string
	src  TokenSource
	next http.RoundTripper
}

func (b *bearerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || (b.host != "" && req.URL.Host != b.host) {
		return b.next.RoundTrip(req)
	}
	ctx := req.Context()
	tok, err := b.src.Token(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := b.next.RoundTrip(withBearer(req, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	fresh, ferr := b.src.Refresh(ctx, tok)
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
	drain(resp.Body)
	return b.next.RoundTrip(retry)
}

// withBearer returns a copy of req carrying tok ("" leaves the header
// unset).
func withBearer(req *http.Request, tok string) *http.Request {
	if tok == "" {
		return withHeader(req, "", "")
	}
	return withHeader(req, "Authorization", "Bearer "+tok)
}

// withHeader returns a copy of req with header key set to value (key ""
// sets nothing). The copy is shallow except for the header map, which is
// new; the caller's request and its header values are never modified.
func withHeader(req *http.Request, key, value string) *http.Request {
	r := new(http.Request)
	*r = *req
	r.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		r.Header[k] = v
	}
	if key != "" {
		r.Header[key] = []string{value}
	}
	return r
}

// replayable reports whether req can be sent a second time.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// staticToken is the TokenSource of Config.BearerToken.
type staticToken struct{ tok secret.Value }

func (s staticToken) Token(context.Context) (string, error)           { return s.tok.Reveal(), nil }
func (s staticToken) Refresh(context.Context, string) (string, error) { return s.tok.Reveal(), nil }

// basicRT sets HTTP basic authentication (Config.Username/Password) on
// requests for host that carry no Authorization header.
type basicRT struct {
	host   string
	header secret.Value // the full Authorization value
	next   http.RoundTripper
}

func newBasicRT(host, user, pass string, next http.RoundTripper) *basicRT {
	h := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	return &basicRT{host: host, header: secret.New(h), next: next}
}

func (a *basicRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || req.URL.Host != a.host {
		return a.next.RoundTrip(req)
	}
	return a.next.RoundTrip(withHeader(req, "Authorization", a.header.Reveal()))
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// drain reads a little of a response body so the connection can be reused,
// then closes it.
func drain(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}
