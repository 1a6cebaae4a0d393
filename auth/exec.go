package auth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/secret"
	"github.com/kubego/kubego/rest"
)

// DefaultExecTimeout bounds one plugin run when ExecOptions.Timeout is zero.
const DefaultExecTimeout = 2 * time.Minute

// ExecOptions configures NewExec. Only Config is required.
type ExecOptions struct {
	// Config is the plugin to run.
	Config ExecConfig

	// Timeout bounds each run. Zero means DefaultExecTimeout.
	Timeout time.Duration

	// Stdin is given to the plugin when it runs interactively: its
	// interactiveMode is IfAvailable or Always and Terminal reports true.
	// Nil means no stdin is available (Never semantics; Always fails).
	// Programs with a user at a terminal pass os.Stdin.
	Stdin io.Reader
	// Terminal reports whether Stdin is a terminal. Nil means: Stdin is an
	// *os.File that is a character device.
	Terminal func() bool
	// Stderr receives the plugin's stderr as it runs (prompts, progress).
	// Nil means it is only captured for error messages.
	Stderr io.Writer

	// Environ is the base environment of the plugin. Nil means
	// os.Environ.
	Environ func() []string
	// Runner runs the plugin. Nil means os/exec.
	Runner Runner
	// Clock tells the time for expiry and run durations. Nil means the
	// wall clock.
	Clock clock.Clock
	// Logger receives a debug line per run (command, duration; no
	// credentials) and a warning when a run after a 401 fails. Nil means
	// warnings go to slog.Default() and debug lines nowhere.
	Logger *slog.Logger
}

// Exec is an exec credential plugin. It supplies a bearer token through
// WrapTransport and, when the plugin returns one, a client certificate
// through GetClientCertificate. It is safe for concurrent use; at most one
// run is in flight at a time.
type Exec struct {
	// cfg is the validated configuration without the values of its
	// variables, which env holds in the same order: fmt prints an
	// ExecConfig redacted only where it can call its methods, never from
	// an unexported field. opts.Config is cleared.
	cfg  ExecConfig
	env  []secret.Value
	opts ExecOptions

	sem chan struct{} // held while running the plugin

	mu   sync.Mutex
	cur  *credential
	runs int
}

// NewExec validates the configuration and returns the plugin. It does not
// run it: the first request (or GetClientCertificate) does.
func NewExec(opts ExecOptions) (*Exec, error) {
	cfg, err := opts.Config.validate()
	if err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultExecTimeout
	}
	opts.Clock = clock.Or(opts.Clock)
	opts.Logger = defaultlog.Or(opts.Logger)
	if opts.Runner == nil {
		opts.Runner = osRunner{}
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.Terminal == nil {
		stdin := opts.Stdin
		opts.Terminal = func() bool { return isTerminal(stdin) }
	}
	opts.Config = ExecConfig{}
	e := &Exec{opts: opts, sem: make(chan struct{}, 1)}
	e.cfg, e.env = cfg, make([]secret.Value, len(cfg.Env))
	e.cfg.Env = make([]EnvVar, len(cfg.Env))
	for i, v := range cfg.Env {
		e.cfg.Env[i], e.env[i] = EnvVar{Name: v.Name}, secret.New(v.Value)
	}
	return e, nil
}

// Config returns the plugin configuration (with defaults applied). The
// caller may modify the copy; slices are shared with the Exec, so copy them
// before changing their elements.
func (e *Exec) Config() ExecConfig {
	c := e.cfg
	c.Env = e.envVars()
	return c
}

// envVars returns the configured variables with their values.
func (e *Exec) envVars() []EnvVar {
	out := make([]EnvVar, len(e.cfg.Env))
	for i, v := range e.cfg.Env {
		out[i] = EnvVar{Name: v.Name, Value: e.env[i].Reveal()}
	}
	return out
}

// Runs reports how many times the plugin has been run.
func (e *Exec) Runs() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs
}

func (e *Exec) String() string   { return "auth.Exec{" + e.cfg.Command + "}" }
func (e *Exec) GoString() string { return e.String() }

// valid returns the cached credential if it has not expired.
func (e *Exec) valid() *credential {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cur
	if c == nil || (!c.expiry.IsZero() && !e.opts.Clock.Now().Before(c.expiry)) {
		return nil
	}
	return c
}

// credential returns a valid credential, running the plugin if needed.
func (e *Exec) credential(ctx context.Context) (*credential, error) {
	if c := e.valid(); c != nil {
		return c, nil
	}
	if err := e.lock(ctx); err != nil {
		return nil, err
	}
	defer e.unlock()
	if c := e.valid(); c != nil {
		return c, nil
	}
	return e.run(ctx)
}

func (e *Exec) lock(ctx context.Context) error {
	select {
	case e.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Exec) unlock() { <-e.sem }

func (e *Exec) token(ctx context.Context) (string, error) {
	c, err := e.credential(ctx)
	if err != nil {
		return "", err
	}
	return c.token.Reveal(), nil
}

// refresh re-runs the plugin after used was rejected, unless another caller
// already replaced it.
func (e *Exec) refresh(ctx context.Context, used string) (string, error) {
	if err := e.lock(ctx); err != nil {
		return "", err
	}
	defer e.unlock()
	e.mu.Lock()
	cur := e.cur
	e.mu.Unlock()
	if cur != nil && cur.token.Reveal() != used {
		return cur.token.Reveal(), nil
	}
	c, err := e.run(ctx)
	if err != nil {
		// The caller gets the 401; without this line the reason would be
		// lost. The error names the command and quotes only redacted
		// stderr.
		e.opts.Logger.Warn("exec credential plugin failed after a 401; returning the 401", "command", e.cfg.Command, "err", err)
		return "", err
	}
	return c.token.Reveal(), nil
}

// WrapTransport implements rest.Authenticator through rest.BearerAuth:
// requests carry the plugin's token (when it returned one). On a 401 the
// plugin is run again once.
func (e *Exec) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return rest.BearerAuth(execTokens{e}).WrapTransport(rt)
}

// GetClientCertificate returns the plugin's client certificate, running the
// plugin if the cached credential expired. When the plugin returns no
// certificate, it returns an empty certificate (none is sent). It makes
// an Exec a rest.ClientCertificateSource, for
// rest.TLSConfig.ClientCertificates. It is called per TLS handshake:
// connections already open keep the certificate they were made with, so a
// rotated certificate is used from the next new connection on.
func (e *Exec) GetClientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	ctx := context.Background()
	if cri != nil {
		ctx = cri.Context()
	}
	c, err := e.credential(ctx)
	if err != nil {
		return nil, err
	}
	if c.cert == nil {
		return &tls.Certificate{}, nil
	}
	return c.cert, nil
}

// interactive decides whether this run gets stdin.
func (e *Exec) interactive() (bool, error) {
	switch e.cfg.InteractiveMode {
	case InteractiveNever:
		return false, nil
	case InteractiveAlways:
		if e.opts.Stdin == nil || !e.opts.Terminal() {
			return false, ErrInteractiveRequired
		}
		return true, nil
	default: // IfAvailable
		return e.opts.Stdin != nil && e.opts.Terminal(), nil
	}
}

// run runs the plugin once and caches its credential. Callers hold sem.
func (e *Exec) run(ctx context.Context) (*credential, error) {
	interactive, err := e.interactive()
	if err != nil {
		return nil, e.errorf(err, nil, 0)
	}
	env := append([]string(nil), e.opts.Environ()...)
	for _, v := range e.envVars() {
		env = append(env, v.Name+"="+v.Value)
	}
	env = append(env, "KUBERNETES_EXEC_INFO="+execInfo(e.cfg, interactive))
	cmd := Command{Path: e.cfg.Command, Args: e.cfg.Args, Env: env, Stderr: e.opts.Stderr}
	if interactive {
		cmd.Stdin = e.opts.Stdin
	}

	runCtx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	start := e.opts.Clock.Now()
	e.mu.Lock()
	e.runs++
	e.mu.Unlock()
	stdout, stderr, err := e.opts.Runner.Run(runCtx, cmd)
	e.opts.Logger.Debug("ran exec credential plugin", "command", e.cfg.Command, "duration", e.opts.Clock.Now().Sub(start), "ok", err == nil)
	switch {
	case err == nil:
	case isNotFound(err):
		return nil, e.errorf(ErrExecNotFound, stderr, 0)
	case runCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return nil, e.errorf(ErrExecTimeout, stderr, 0)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, ErrTooLarge):
		return nil, e.errorf(fmt.Errorf("%w: stdout: %w", ErrExecOutput, ErrTooLarge), stderr, 0)
	default:
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return nil, e.errorf(ErrExecFailed, stderr, code)
	}
	c, err := parseCredential(stdout, e.cfg.APIVersion)
	if err != nil {
		return nil, e.errorf(err, stderr, 0)
	}
	e.mu.Lock()
	e.cur = c
	e.mu.Unlock()
	return c, nil
}

// errorf builds an *ExecError with the stderr redacted.
func (e *Exec) errorf(err error, stderr []byte, code int) *ExecError {
	xe := &ExecError{Command: e.cfg.Command, Err: err, ExitCode: code, Stderr: e.redact(string(stderr))}
	if errors.Is(err, ErrExecNotFound) {
		xe.InstallHint = e.cfg.InstallHint
	}
	return xe
}

// redact removes configured env values, args and the last token from s and
// truncates it.
func (e *Exec) redact(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var secrets []string
	for _, v := range e.envVars() {
		secrets = append(secrets, v.Value)
	}
	secrets = append(secrets, e.cfg.Args...)
	e.mu.Lock()
	if e.cur != nil {
		secrets = append(secrets, e.cur.token.Reveal())
	}
	e.mu.Unlock()
	for _, v := range secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "<redacted>")
		}
	}
	const max = 1024
	if len(s) > max {
		s = "..." + s[len(s)-max:]
	}
	return s
}

// ExecError is a failed plugin run. Its message names the command (never
// its args or env), the cause, the install hint when the command is
// missing, and the end of the plugin's stderr with known secrets redacted.
type ExecError struct {
	Command     string
	Err         error  // wraps one of the ErrExec* sentinels or ErrInteractiveRequired
	ExitCode    int    // for ErrExecFailed: the exit code, -1 if unknown
	Stderr      string // redacted, truncated
	InstallHint string
}

func (e *ExecError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec plugin %q: %v", e.Command, e.Err)
	if errors.Is(e.Err, ErrExecFailed) && e.ExitCode >= 0 {
		fmt.Fprintf(&b, " (exit code %d)", e.ExitCode)
	}
	if e.InstallHint != "" {
		b.WriteString("\n\n")
		b.WriteString(e.InstallHint)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "; stderr: %s", e.Stderr)
	}
	return b.String()
}

func (e *ExecError) Unwrap() error { return e.Err }
