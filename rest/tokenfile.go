package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/boundedread"
	"github.com/kubego/kubego/internal/secret"
)

// TokenFileMaxAge is how long a token read from Config.BearerTokenFile is
// used before the file is read again. A 401 re-reads it at once. kubelet
// rewrites a projected service-account token well before it expires (the
// shortest lifetime it asks for is ten minutes, usually an hour), and
// client-go also re-reads about once a minute, so a minute costs one small
// file read per minute and never sends a token much older than the file.
const TokenFileMaxAge = time.Minute

// maxTokenFileBytes bounds a token file.
const maxTokenFileBytes = 1 << 20

// Token file errors. ReadTokenFile, NewClient (inside a *ConfigError) and
// requests return them wrapped; test with errors.Is.
var (
	// ErrEmptyTokenFile: the token file holds only white space.
	ErrEmptyTokenFile = errors.New("rest: bearer token file is empty")
	// ErrInvalidToken: the token contains characters not allowed in an HTTP
	// header (a line break or NUL inside it).
	ErrInvalidToken = errors.New("rest: bearer token contains characters not allowed in a header")
	// ErrTokenFileTooLarge: the token file is larger than 1 MiB.
	ErrTokenFileTooLarge = errors.New("rest: bearer token file is too large")
)

// ReadTokenFile reads a bearer token file the way Config.BearerTokenFile is
// read: a regular file of at most 1 MiB, surrounding white space trimmed.
// Errors name the path, never the content, and wrap an fs error,
// ErrEmptyTokenFile, ErrInvalidToken or ErrTokenFileTooLarge. Package
// kubeconfig uses it to report a bad token file when it loads.
func ReadTokenFile(path string) (string, error) {
	if path == "" {
		return "", errors.New("rest: bearer token file: no path")
	}
	b, err := boundedread.File(path, maxTokenFileBytes, ErrTokenFileTooLarge)
	if err != nil {
		return "", fmt.Errorf("rest: reading bearer token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", fmt.Errorf("%s: %w", path, ErrEmptyTokenFile)
	case strings.ContainsAny(tok, "\r\n\x00"):
		return "", fmt.Errorf("%s: %w", path, ErrInvalidToken)
	}
	return tok, nil
}

// tokenFile is the TokenSource of Config.BearerTokenFile: the token read
// from the file, re-read after TokenFileMaxAge and after a 401. A failed
// re-read keeps the last good token (the file may be in the middle of an
// atomic replacement), logs a warning and is tried again after
// TokenFileMaxAge or the next 401, so a broken file is not read (and
// reported) on every request.
type tokenFile struct {
	path  string
	clock clock.Clock
	log   *slog.Logger

	mu     sync.Mutex
	tok    secret.Value
	readAt time.Time
}

// newTokenFile reads the file once, so that a missing or bad file is
// reported when the Client is built.
func newTokenFile(path string, c clock.Clock, log *slog.Logger) (*tokenFile, error) {
	tok, err := ReadTokenFile(path)
	if err != nil {
		return nil, err
	}
	return &tokenFile{path: path, clock: c, log: log, tok: secret.New(tok), readAt: c.Now()}, nil
}

func (f *tokenFile) Token(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clock.Now().Sub(f.readAt) >= TokenFileMaxAge {
		f.rereadLocked()
	}
	return f.tok.Reveal(), nil
}

func (f *tokenFile) Refresh(_ context.Context, rejected string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tok.Reveal() == rejected {
		f.rereadLocked()
	}
	return f.tok.Reveal(), nil
}

func (f *tokenFile) rereadLocked() {
	tok, err := ReadTokenFile(f.path)
	if err != nil {
		f.log.Warn("re-reading the bearer token file failed; keeping the previous token", "path", f.path, "err", err)
		f.readAt = f.clock.Now()
		return
	}
	f.tok, f.readAt = secret.New(tok), f.clock.Now()
}
