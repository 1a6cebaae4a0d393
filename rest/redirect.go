package rest

import (
	"errors"
	"fmt"
	"net/http"
)

// RedirectError is returned (wrapped) when the server redirects a request to
// another host or from https to http. Such redirects are never followed, so
// credentials cannot leak to a host the Config did not name.
type RedirectError struct {
	// From and To are the scheme://host of the original and the redirect
	// target; paths and queries are omitted.
	From, To string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("rest: refusing redirect from %s to %s (another host)", e.From, e.To)
}

// ErrTooManyRedirects is returned (wrapped) after 10 same-host redirects.
var ErrTooManyRedirects = errors.New("rest: stopped after 10 redirects")

// checkRedirect is the http.Client redirect policy: same scheme and host
// only, at most 10 hops.
func checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
		return &RedirectError{From: first.Scheme + "://" + first.Host, To: req.URL.Scheme + "://" + req.URL.Host}
	}
	if len(via) >= 10 {
		return ErrTooManyRedirects
	}
	return nil
}
