package rest

import (
	"net/http"
	"net/url"
)

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
