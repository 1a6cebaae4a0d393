package kubeconfig

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kubego/kubego/auth"
)

// Overrides replace parts of the chosen context, like kubectl's --context,
// --cluster, --user, --server and --namespace flags. Empty fields change
// nothing.
type Overrides struct {
	// Context is used instead of current-context.
	Context string
	// Cluster and User name entries used instead of the context's.
	Cluster string
	User    string
	// Server replaces the cluster's server URL. With no context at all,
	// a Server override alone is enough to build a config.
	Server string
	// Namespace replaces the context's namespace.
	Namespace string
}

// DefaultServiceAccountDir is where Kubernetes mounts a Pod's
// service-account token, CA and namespace.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// Options says where Load looks and how it builds the config. The zero
// value loads like kubectl from the real environment.
type Options struct {
	// Path is an explicit kubeconfig file (like --kubeconfig). When set,
	// nothing else is tried and a missing file is an error.
	Path string
	// Overrides apply to whatever is loaded (Context, Cluster and User only
	// to kubeconfig files; when any of them is set, in-cluster config is not
	// tried).
	Overrides Overrides

	// Getenv reads environment variables (KUBECONFIG,
	// KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT). Nil means
	// os.Getenv.
	Getenv func(string) string
	// HomeDir is the directory holding .kube/config. Empty means
	// os.UserHomeDir.
	HomeDir string
	// ServiceAccountDir holds token, ca.crt and namespace for in-cluster
	// config. Empty means DefaultServiceAccountDir.
	ServiceAccountDir string
	// DisableInCluster skips the in-cluster step.
	DisableInCluster bool

	// AllowInsecureAuth is copied to rest.Config: it permits credentials
	// over plain http.
	AllowInsecureAuth bool
	// Exec is the template for exec plugins (timeout, stdin, stderr,
	// runner); its Config is filled from the kubeconfig.
	Exec auth.ExecOptions
	// Logger is given to the authenticators of package auth (client
	// certificate reload warnings, exec plugin runs). Nil means their
	// default: warnings to slog.Default(). Token-file re-read warnings
	// come from the rest.Client and go to rest.Config.Logger.
	Logger *slog.Logger
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// Load finds a configuration the way kubectl and client-go programs do,
// trying in order:
//
//  1. opts.Path, when set (only that file; it must exist);
//  2. the files listed in $KUBECONFIG (separated by os.PathListSeparator),
//     merged as ReadFiles describes; missing files are skipped, and if none
//     exists, step 4 is skipped too;
//  3. in-cluster config (InCluster), when KUBERNETES_SERVICE_HOST and
//     KUBERNETES_SERVICE_PORT are set, opts.DisableInCluster is false and
//     no Context, Cluster or User override is given;
//  4. $HOME/.kube/config.
//
// Overrides are applied to the result. When nothing is found the error
// wraps ErrNoConfig; all errors are *Error naming the file and field.
func Load(opts Options) (*ClientConfig, error) {
	if opts.Path != "" {
		f, err := ReadFile(opts.Path)
		if err != nil {
			return nil, err
		}
		return f.ClientConfig(opts)
	}
	kubeconfigSet := false
	if list := opts.getenv("KUBECONFIG"); list != "" {
		kubeconfigSet = true
		f, err := ReadFiles(filepath.SplitList(list)...)
		switch {
		case err == nil:
			return f.ClientConfig(opts)
		case !errors.Is(err, ErrNoConfig):
			return nil, err
		}
	}
	o := opts.Overrides
	if !opts.DisableInCluster && o.Context == "" && o.Cluster == "" && o.User == "" {
		cc, err := InCluster(opts)
		if !errors.Is(err, ErrNotInCluster) {
			return cc, err
		}
	}
	if kubeconfigSet {
		return nil, &Error{Field: "KUBECONFIG", Err: ErrNoConfig}
	}
	home := opts.HomeDir
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, &Error{Field: "HOME", Err: ErrNoConfig}
		}
		home = h
	}
	path := filepath.Join(home, ".kube", "config")
	f, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{File: path, Err: ErrNoConfig}
	}
	if err != nil {
		return nil, err
	}
	return f.ClientConfig(opts)
}
