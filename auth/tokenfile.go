package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// maxTokenBytes bounds a token file.
const maxTokenBytes = 1 << 20

// TokenFileOptions configures NewTokenFile.
type TokenFileOptions struct {
	// Path is the file holding the token (required). Surrounding
	// whitespace is trimmed.
	Path string
	// MaxAge is how long a token read from the file is used before the file
	// is read again. Zero means one minute. A 401 always triggers a re-read.
	MaxAge time.Duration
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
	// Logger receives a warning when a re-read fails (the previous token is
	// kept). Nil means no logging. Tokens are never logged.
	Logger *slog.Logger
}

// TokenFile is a bearer token read from a file that may be rewritten at any
// time, such as a projected service-account token. It is safe for
// concurrent use.
type TokenFile struct {
	opts TokenFileOptions

	mu     sync.Mutex
	tok    string
	readAt time.Time
}

// NewTokenFile reads the token file once, so that a missing or empty file is
// reported now, and returns the authenticator. Errors name the file, never
// its content.
func NewTokenFile(opts TokenFileOptions) (*TokenFile, error) {
	if opts.MaxAge <= 0 {
		opts.MaxAge = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t := &TokenFile{opts: opts}
	tok, err := readToken(opts.Path)
	if err != nil {
		return nil, err
	}
	t.tok, t.readAt = tok, opts.Now()
	return t, nil
}

// Path returns the token file's path.
func (t *TokenFile) Path() string { return t.opts.Path }

// Token returns the current token, re-reading the file when the cached one
// is older than MaxAge. If the re-read fails, the previous token is
// returned.
func (t *TokenFile) Token(ctx context.Context) (string, error) { return t.token(ctx) }

func (t *TokenFile) token(context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.opts.Now().Sub(t.readAt) < t.opts.MaxAge {
		return t.tok, nil
	}
	t.reread()
	return t.tok, nil
}

func (t *TokenFile) refresh(_ context.Context, used string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == used {
		t.reread()
	}
	return t.tok, nil
}

// reread reads the file into t.tok; on failure it keeps the old token.
// Callers hold t.mu.
func (t *TokenFile) reread() {
	tok, err := readToken(t.opts.Path)
	if err != nil {
		if t.opts.Logger != nil {
			t.opts.Logger.Warn("re-reading token file failed; keeping the previous token", "path", t.opts.Path, "err", err)
		}
		return
	}
	t.tok, t.readAt = tok, t.opts.Now()
}

// WrapTransport implements rest.Authenticator.
func (t *TokenFile) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return &bearerTransport{src: t, next: rt}
}

func (t *TokenFile) String() string   { return "auth.TokenFile{" + t.opts.Path + "}" }
func (t *TokenFile) GoString() string { return t.String() }

func readToken(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("token file: %w", errors.New("no path"))
	}
	b, err := readFile(path, maxTokenBytes)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s: %w", path, ErrEmptyToken)
	}
	if !validToken(tok) {
		return "", fmt.Errorf("token file %s: %w", path, ErrInvalidToken)
	}
	return tok, nil
}
