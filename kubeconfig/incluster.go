package kubeconfig

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubego/kubego/rest"
)

// InCluster builds the config a Pod uses to reach its own cluster: the
// server from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the CA
// from <ServiceAccountDir>/ca.crt, a bearer token from
// <ServiceAccountDir>/token (re-read as kubelet rotates it, and on 401), and
// the namespace from <ServiceAccountDir>/namespace (else "default"). The
// Server and Namespace overrides of opts apply.
//
// It fails closed: a missing or invalid ca.crt is an error (ErrMissingCA,
// ErrInvalidCA), never an unverified connection. Without the environment
// variables the error wraps ErrNotInCluster.
func InCluster(opts Options) (*ClientConfig, error) {
	host, port := opts.getenv("KUBERNETES_SERVICE_HOST"), opts.getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, &Error{Field: "KUBERNETES_SERVICE_HOST", Err: ErrNotInCluster}
	}
	dir := opts.ServiceAccountDir
	if dir == "" {
		dir = DefaultServiceAccountDir
	}
	server := "https://" + net.JoinHostPort(host, port)
	field := "KUBERNETES_SERVICE_HOST"
	if opts.Overrides.Server != "" {
		server, field = opts.Overrides.Server, "server override"
	}
	h, err := ParseServer(server)
	if err != nil {
		return nil, &Error{Field: field, Err: err}
	}

	if strings.HasPrefix(h, "http://") && !opts.AllowInsecureAuth {
		return nil, &Error{Field: field, Err: fmt.Errorf("%w: service-account token", ErrInsecureAuth)}
	}

	caPath := filepath.Join(dir, "ca.crt")
	ca, err := readFile(caPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{File: caPath, Err: ErrMissingCA}
	}
	if err != nil {
		return nil, &Error{File: caPath, Err: unwrapPathError(err)}
	}
	if err := checkCA(ca); err != nil {
		return nil, &Error{File: caPath, Err: err}
	}

	tokenPath := filepath.Join(dir, "token")
	if _, err := rest.ReadTokenFile(tokenPath); err != nil {
		return nil, &Error{File: tokenPath, Err: err}
	}

	ns := opts.Overrides.Namespace
	if ns == "" {
		if b, err := os.ReadFile(filepath.Join(dir, "namespace")); err == nil {
			ns = strings.TrimSpace(string(b))
		}
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	cfg := &rest.Config{
		Host:              h,
		TLS:               rest.TLSConfig{CAFile: caPath},
		BearerTokenFile:   tokenPath,
		AllowInsecureAuth: opts.AllowInsecureAuth,
	}
	return &ClientConfig{Config: cfg, Namespace: ns, InCluster: true}, nil
}
