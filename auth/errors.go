package auth

import "errors"

// Sentinel errors. Errors returned by this package wrap one of them; test
// with errors.Is.
var (
	// ErrInvalidToken: a token contains characters not allowed in an HTTP
	// header (such as a newline inside it).
	ErrInvalidToken = errors.New("token contains characters not allowed in a header")
	// ErrTooLarge: a certificate or key file, or a plugin's output, exceeds
	// its size bound.
	ErrTooLarge = errors.New("input too large")
	// ErrInvalidCertificate: a client certificate or key does not parse, or
	// they do not match.
	ErrInvalidCertificate = errors.New("invalid client certificate or key")

	// ErrExecNotFound: the exec plugin's command does not exist.
	ErrExecNotFound = errors.New("exec plugin not found")
	// ErrExecFailed: the exec plugin exited with an error.
	ErrExecFailed = errors.New("exec plugin failed")
	// ErrExecTimeout: the exec plugin ran longer than ExecOptions.Timeout.
	ErrExecTimeout = errors.New("exec plugin timed out")
	// ErrExecOutput: the exec plugin's output is not a valid ExecCredential
	// of the configured apiVersion.
	ErrExecOutput = errors.New("invalid exec plugin output")
	// ErrExecConfig: the exec plugin configuration is invalid (no command,
	// missing or unknown apiVersion, unknown interactiveMode).
	ErrExecConfig = errors.New("invalid exec plugin configuration")
	// ErrInteractiveRequired: the plugin's interactiveMode is Always but no
	// terminal is available for its stdin.
	ErrInteractiveRequired = errors.New("exec plugin requires an interactive terminal, and none is available")
)
