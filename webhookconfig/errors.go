package webhookconfig

import "errors"

var (
	// ErrInvalidOptions is wrapped by the constructors' errors for options
	// that cannot work (a missing Namespace, a negative duration).
	ErrInvalidOptions = errors.New("webhookconfig: invalid options")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("webhookconfig: already started")
	// ErrNoCertificate is returned by Certificates.GetCertificate before
	// the first serving certificate was provisioned.
	ErrNoCertificate = errors.New("webhookconfig: no serving certificate yet")
	// ErrForeignSecret is wrapped by Certificates.Start's error when the
	// Secret of the configured name exists without ManagedLabel: it was
	// not made by Certificates and is left alone.
	ErrForeignSecret = errors.New("webhookconfig: the CA Secret is not managed by webhookconfig")
	// ErrInvalidWebhook is wrapped by Set.Configurations' error for a
	// registration that cannot make a configuration (a path without a
	// leading slash, a path registered twice, a type that maps to no
	// resource).
	ErrInvalidWebhook = errors.New("webhookconfig: invalid webhook registration")
)
