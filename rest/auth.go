package rest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenFileTTL is how long a token read from BearerTokenFile is used before
// the file is read again.
const tokenFileTTL = 10 * time.Second

// ErrEmptyTokenFile is returned (wrapped) by requests when BearerTokenFile
// holds no token.
var ErrEmptyTokenFile = errors.New("rest: bearer token file is empty")

// sameHost reports whether req goes to the configured host. Credentials are
// added only then, as defence in depth behind the redirect policy.
func sameHost(req *http.Request, host string) bool { return req.URL.Host == host }

// staticAuth sets one Authorization header value.
type staticAuth struct {
	host   string
	header string // full Authorization value; a secret
	next   http.RoundTripper
}

func (a *staticAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || !sameHost(req, a.host) {
		return a.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", a.header)
	return a.next.RoundTrip(r)
}

func basicHeader(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// tokenFile caches the token read from a file and re-reads it after
// tokenFileTTL or when asked to (after a 401).
type tokenFile struct {
	path  string
	clock Clock

	mu     sync.Mutex
	token  string
	readAt time.Time
}

func (f *tokenFile) get() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token != "" && f.clock.Now().Sub(f.readAt) < tokenFileTTL {
		return f.token, nil
	}
	return f.readLocked()
}

// refresh re-reads the file now and returns the token.
func (f *tokenFile) refresh() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readLocked()
}

func (f *tokenFile) readLocked() (string, error) {
	b, err := os.ReadFile(f.path)
	if err != nil {
		if f.token != "" {
			// Keep using the last good token: the file may be in the
			// middle of an atomic rename.
			return f.token, nil
		}
		return "", fmt.Errorf("rest: reading bearer token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		if f.token != "" {
			return f.token, nil
		}
		return "", ErrEmptyTokenFile
	}
	f.token, f.readAt = tok, f.clock.Now()
	return tok, nil
}

// tokenFileAuth authenticates with the token from a file; on a 401 it
// re-reads the file once and, if the token changed and the request can be
// replayed, retries with the new one.
type tokenFileAuth struct {
	host string
	src  *tokenFile
	next http.RoundTripper
}

func (a *tokenFileAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || !sameHost(req, a.host) {
		return a.next.RoundTrip(req)
	}
	tok, err := a.src.get()
	if err != nil {
		closeBody(req)
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	resp, err := a.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	fresh, ferr := a.src.refresh()
	if ferr != nil || fresh == tok {
		return resp, nil
	}
	r2 := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, nil
		}
		body, berr := req.GetBody()
		if berr != nil {
			return resp, nil
		}
		r2.Body = body
	}
	drain(resp.Body)
	r2.Header.Set("Authorization", "Bearer "+fresh)
	return a.next.RoundTrip(r2)
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

// impersonateRT sets the Impersonate-* headers.
type impersonateRT struct {
	imp  Impersonation
	next http.RoundTripper
}

func (t *impersonateRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Impersonate-User", t.imp.UserName)
	if t.imp.UID != "" {
		r.Header.Set("Impersonate-Uid", t.imp.UID)
	}
	for _, g := range t.imp.Groups {
		r.Header.Add("Impersonate-Group", g)
	}
	for k, vs := range t.imp.Extra {
		// Header names are case-insensitive and restricted; the key is
		// percent-encoded as the apiserver expects.
		name := "Impersonate-Extra-" + url.PathEscape(k)
		for _, v := range vs {
			r.Header.Add(name, v)
		}
	}
	return t.next.RoundTrip(r)
}

// userAgentRT sets User-Agent when the request has none.
type userAgentRT struct {
	agent string
	next  http.RoundTripper
}

func (t *userAgentRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") != "" {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("User-Agent", t.agent)
	return t.next.RoundTrip(r)
}
