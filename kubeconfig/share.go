package kubeconfig

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"time"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/internal/weakcache"
)

// execKey identifies an exec plugin and the options it runs with. The
// configuration (env values included) enters as a hash; the streams and the
// logger by identity.
type execKey struct {
	config  [sha256.Size]byte
	timeout time.Duration
	stdin   io.Reader
	stderr  io.Writer
	logger  *slog.Logger
}

// certKey identifies a pair of client certificate files and the logger
// told about failed reloads.
type certKey struct {
	certFile, keyFile string
	logger            *slog.Logger
}

// execs and certFiles are the process-wide sharing of authenticators:
// every Config loaded for the same plugin (or the same files) gets the same
// value while any Config still uses it, so the plugin runs once and the
// clients share a connection pool (rest keys its transports on the source's
// identity). They hold no secret in readable form and are safe for
// concurrent use.
var (
	execs     = weakcache.New[execKey, auth.Exec]()
	certFiles = weakcache.New[certKey, auth.CertFiles]()
)

// sharedExec returns the Exec for eo, shared when eo can be compared: no
// Terminal, Environ, Runner or Clock (funcs and custom implementations
// cannot be told apart), and streams of comparable types.
func sharedExec(eo auth.ExecOptions) (*auth.Exec, error) {
	build := func() (*auth.Exec, error) { return auth.NewExec(eo) }
	if eo.Terminal != nil || eo.Environ != nil || eo.Runner != nil || eo.Clock != nil || !comparable(eo.Stdin) || !comparable(eo.Stderr) {
		return build()
	}
	b, err := json.Marshal(execKeyData{ExecConfig: eo.Config, Env: envPairs(eo.Config.Env)})
	if err != nil {
		return build()
	}
	k := execKey{config: sha256.Sum256(b), timeout: eo.Timeout, stdin: eo.Stdin, stderr: eo.Stderr, logger: eo.Logger}
	return execs.Get(k, build)
}

// sharedCertFiles returns the CertFiles for the pair, shared by every
// Config that names the same files.
func sharedCertFiles(opts auth.CertFilesOptions) (*auth.CertFiles, error) {
	return certFiles.Get(certKey{certFile: opts.CertFile, keyFile: opts.KeyFile, logger: opts.Logger}, func() (*auth.CertFiles, error) {
		return auth.NewCertFiles(opts)
	})
}

// comparable reports whether v can be a map key.
func comparable(v any) bool {
	return v == nil || reflect.TypeOf(v).Comparable()
}

// execKeyData is what the key of a shared Exec encodes: the whole
// configuration, with the values of its variables, which auth.EnvVar
// redacts when encoded on its own.
type execKeyData struct {
	auth.ExecConfig
	Env [][2]string
}

func envPairs(env []auth.EnvVar) [][2]string {
	out := make([][2]string, len(env))
	for i, e := range env {
		out[i] = [2]string{e.Name, e.Value}
	}
	return out
}
