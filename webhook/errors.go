package webhook

import (
	"errors"

	"github.com/kubego/kubego/internal/servingcert"
)

var (
	// ErrInvalidOptions is wrapped by New's error for options that cannot
	// work (no certificate files, a negative limit).
	ErrInvalidOptions = errors.New("webhook: invalid options")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("webhook: server already started")
	// ErrNotServing is returned by ReadyCheck before Start listens and
	// after the server stopped.
	ErrNotServing = errors.New("webhook: server not serving")
	// ErrNoCertificate is wrapped by ReadyCheck's error while there is no
	// serving certificate (or none with its Leaf parsed).
	ErrNoCertificate = errors.New("webhook: no serving certificate")
	// ErrCertificateExpired is wrapped by ReadyCheck's error once the
	// serving certificate expired.
	ErrCertificateExpired = errors.New("webhook: serving certificate expired")
)

// ErrRequestTimeout is the cause of a request context that ended because
// Options.RequestTimeout passed.
var ErrRequestTimeout = errors.New("webhook: request timeout exceeded")

// ErrCertificateFileTooLarge is wrapped by the error of a certificate or
// key file over 1 MiB.
var ErrCertificateFileTooLarge = servingcert.ErrFileTooLarge
