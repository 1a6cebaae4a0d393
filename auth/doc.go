// Package auth provides the credentials a Kubernetes client gets from
// outside its configuration: exec credential plugins
// (client.authentication.k8s.io/v1 and v1beta1) and client certificates
// reloaded from disk when they are rotated.
//
// Static bearer tokens, token files (such as a projected service-account
// token) and HTTP basic auth are not here: they are rest.Config fields
// (BearerToken, BearerTokenFile, Username/Password) with one implementation
// in package rest, so a Config says each credential in exactly one place.
//
// [Exec] implements rest.Authenticator (WrapTransport, for Config.Auth) and
// rest.ClientCertificateSource (for rest.TLSConfig.ClientCertificates), as
// does [CertFiles]. Configs holding the same *Exec or *CertFiles share one
// connection pool. Package
// kubeconfig builds them from a kubeconfig file; programs can also build
// them directly:
//
//	ex, err := auth.NewExec(auth.ExecOptions{Config: auth.ExecConfig{
//		Command:    "my-login-plugin",
//		APIVersion: auth.ExecAPIV1,
//	}})
//	cfg := &rest.Config{Host: "https://example.com:6443", Auth: ex}
//	cfg.TLS.ClientCertificates = ex
//
// # Tokens and 401
//
// An exec plugin's token is sent through rest.BearerAuth, the same code
// that sends Config.BearerToken and Config.BearerTokenFile: "Authorization:
// Bearer <token>" on every request that does not carry an Authorization
// header already. When the server answers 401 Unauthorized, the plugin is
// run again once. If that yields a different token and the request body
// can be replayed (no body, or Request.GetBody set), the request is sent
// once more; otherwise the 401 is returned and later requests use the new
// token.
//
// # Exec plugins
//
// An exec plugin is run with the configured args and env on top of the
// process environment, and with KUBERNETES_EXEC_INFO describing the request
// (and the cluster when provideClusterInfo is set). Its credential is cached
// until status.expirationTimestamp (for ever when absent) and fetched again
// on a 401. Runs are serialized: concurrent requests wait for one run.
// Each run is bounded by ExecOptions.Timeout (default 2 minutes, long
// enough for a browser-based login, short enough that a wedged plugin does
// not hang a controller for ever). stdin is given to the plugin only when
// the interactive mode allows it and ExecOptions.Stdin is a terminal;
// interactiveMode Always without a terminal is an error (ErrInteractiveRequired)
// and the plugin is not run.
//
// # Logging
//
// ExecOptions.Logger and CertFilesOptions.Logger default, like every kubego
// logger, to slog.Default() for warnings and errors only: a client
// certificate that fails to reload is reported there; the debug line per
// plugin run is not.
//
// # Secrets
//
// No value in this package logs or returns a secret: tokens and private
// keys never appear in error messages, String or GoString output.
// An exec plugin's stderr is quoted in errors (truncated) with its
// configured env values, args and the last token it returned replaced by
// "<redacted>"; its stdout, which carries the credential, is never quoted.
package auth
