package kubeconfig

import (
	"errors"
	"strings"

	"github.com/kubego/kubego/auth"
)

// Sentinel errors. Every error from this package is an *Error wrapping one
// of these (or an fs error such as fs.ErrNotExist); test with errors.Is.
var (
	// ErrNoConfig: no kubeconfig file exists where Load looked and the
	// process is not in a cluster.
	ErrNoConfig = errors.New("no kubeconfig found")
	// ErrTooLarge: a kubeconfig file exceeds MaxFileSize.
	ErrTooLarge = errors.New("file too large")
	// ErrAliasBomb: a YAML document expands, through aliases, far beyond
	// its own size.
	ErrAliasBomb = errors.New("YAML aliases expand beyond the size bound")
	// ErrSyntax: a file is not valid YAML or JSON for the kubeconfig format.
	ErrSyntax = errors.New("invalid kubeconfig syntax")

	// ErrNoCurrentContext: no context was chosen (current-context unset and
	// no Overrides.Context).
	ErrNoCurrentContext = errors.New("no current context")
	// ErrContextNotFound: the chosen context does not exist.
	ErrContextNotFound = errors.New("context not found")
	// ErrClusterNotFound: the context names a cluster that does not exist
	// (or names none).
	ErrClusterNotFound = errors.New("cluster not found")
	// ErrUserNotFound: the context names a user that does not exist.
	ErrUserNotFound = errors.New("user not found")

	// ErrInvalidServer: the server URL is empty or not usable.
	ErrInvalidServer = errors.New("invalid server URL")
	// ErrInvalidProxy: proxy-url is not an http, https or socks5 URL.
	ErrInvalidProxy = errors.New("invalid proxy URL")
	// ErrInvalidCA: the certificate authority holds no PEM certificate.
	ErrInvalidCA = errors.New("certificate authority is not a PEM certificate")
	// ErrInsecureWithCA: insecure-skip-tls-verify is set together with a
	// certificate authority.
	ErrInsecureWithCA = errors.New("insecure-skip-tls-verify cannot be used with a certificate authority")
	// ErrMissingKey: a client certificate is given without its key.
	ErrMissingKey = errors.New("client certificate without client key")
	// ErrMissingCertificate: a client key is given without its certificate.
	ErrMissingCertificate = errors.New("client key without client certificate")
	// ErrInvalidCertificate: the client certificate and key do not parse
	// or do not match. The same value as auth.ErrInvalidCertificate.
	ErrInvalidCertificate = auth.ErrInvalidCertificate
	// ErrConflictingAuth: a user sets more than one of token/tokenFile,
	// username/password, exec and auth-provider.
	ErrConflictingAuth = errors.New("more than one authentication method")
	// ErrInvalidExec: the exec section is invalid (no command, missing or
	// unknown apiVersion, bad interactiveMode). The same value as
	// auth.ErrExecConfig.
	ErrInvalidExec = auth.ErrExecConfig
	// ErrInsecureAuth: credentials (token, basic auth, exec) would be sent
	// to a plain http server; set Options.AllowInsecureAuth to permit it.
	ErrInsecureAuth = errors.New("refusing to send credentials over plain http")
	// ErrUnsupported: auth-provider plugins are not supported; use an exec
	// plugin instead.
	ErrUnsupported = errors.New("not supported")

	// ErrNotInCluster: KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT
	// is not set.
	ErrNotInCluster = errors.New("not running in a cluster")
	// ErrMissingCA: the in-cluster ca.crt is missing; in-cluster config
	// fails closed rather than trusting any server.
	ErrMissingCA = errors.New("service account ca.crt missing")
)

// Error is a kubeconfig problem located in a file and a field. It never
// holds a secret value: messages name fields, not their content.
type Error struct {
	// File is the kubeconfig (or service-account) file involved; empty for
	// a File built in memory or an override.
	File string
	// Field is the path to the field, such as
	// "users[alice].client-key" or "current-context"; empty when the
	// whole file is concerned.
	Field string
	// Err is the cause: one of the sentinels above, an fs error, or a
	// wrapped auth error.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("kubeconfig")
	if e.File != "" {
		b.WriteString(" ")
		b.WriteString(e.File)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func fieldErr(file, field string, err error) *Error {
	return &Error{File: file, Field: field, Err: err}
}
