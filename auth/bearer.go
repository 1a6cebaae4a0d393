package auth

import (
	"context"
	"strings"
)

// validToken reports whether tok can be sent in a header.
func validToken(tok string) bool {
	return !strings.ContainsAny(tok, "\r\n\x00")
}

// execTokens is the rest.TokenSource of an Exec: rest.BearerAuth sends its
// token and asks it to refresh after a 401.
type execTokens struct{ e *Exec }

func (s execTokens) Token(ctx context.Context) (string, error) { return s.e.token(ctx) }

func (s execTokens) Refresh(ctx context.Context, rejected string) (string, error) {
	return s.e.refresh(ctx, rejected)
}
