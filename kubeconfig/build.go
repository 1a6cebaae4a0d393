package kubeconfig

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/rest"
)

// DefaultNamespace is the namespace used when neither the context nor the
// overrides name one.
const DefaultNamespace = "default"

// ClientConfig is the result of loading: a rest.Config ready for
// rest.NewClient, the namespace to work in, and where it came from. The
// caller owns it and may modify it.
type ClientConfig struct {
	Config    *rest.Config
	Namespace string
	// Context is the kubeconfig context used; empty in-cluster.
	Context string
	// Files are the kubeconfig files read (empty in-cluster).
	Files []string
	// InCluster is set when the config came from the service-account
	// environment.
	InCluster bool
}

// ClientConfig builds the config for the current context (or
// opts.Overrides.Context), applying opts.Overrides. It validates only the
// entries that context uses, and reads the files they name (certificates,
// keys, token file) so that problems surface now. Only Overrides,
// AllowInsecureAuth, Exec and Logger of opts are used.
//
// Errors are *Error naming the file and field: ErrNoCurrentContext,
// ErrContextNotFound, ErrClusterNotFound, ErrUserNotFound,
// ErrInvalidServer, ErrInvalidProxy, ErrInvalidCA, ErrInsecureWithCA,
// ErrMissingKey, ErrMissingCertificate, ErrInvalidCertificate,
// ErrConflictingAuth, ErrInvalidExec, ErrUnsupported, or an fs error for a
// file that cannot be read.
func (f *File) ClientConfig(opts Options) (*ClientConfig, error) {
	o := opts.Overrides
	ctxName := o.Context
	ctxField := "context override"
	if ctxName == "" {
		ctxName, ctxField = f.CurrentContext, "current-context"
	}
	var ctx *Context
	switch {
	case ctxName != "":
		ctx = f.Contexts[ctxName]
		if ctx == nil {
			file := f.currentFrom
			if o.Context != "" {
				file = ""
			}
			return nil, fieldErr(file, ctxField, fmt.Errorf("%w: %q", ErrContextNotFound, ctxName))
		}
	case o.Server != "":
		ctx = &Context{} // everything comes from the overrides
	default:
		return nil, fieldErr(strings.Join(f.files, string(filepath.ListSeparator)), "current-context", ErrNoCurrentContext)
	}

	clusterName, clusterField := ctx.Cluster, "contexts["+ctxName+"].cluster"
	if o.Cluster != "" {
		clusterName, clusterField = o.Cluster, "cluster override"
	}
	cluster := &Cluster{}
	if clusterName != "" || o.Server == "" {
		cluster = f.Clusters[clusterName]
		if cluster == nil {
			return nil, fieldErr(ctx.Origin, clusterField, fmt.Errorf("%w: %q", ErrClusterNotFound, clusterName))
		}
	}
	userName, userField := ctx.User, "contexts["+ctxName+"].user"
	if o.User != "" {
		userName, userField = o.User, "user override"
	}
	user := &User{}
	if userName != "" {
		user = f.Users[userName]
		if user == nil {
			return nil, fieldErr(ctx.Origin, userField, fmt.Errorf("%w: %q", ErrUserNotFound, userName))
		}
	}

	cfg := &rest.Config{AllowInsecureAuth: opts.AllowInsecureAuth}
	if err := applyCluster(cfg, cluster, "clusters["+clusterName+"]", o.Server); err != nil {
		return nil, err
	}
	if err := applyUser(cfg, user, "users["+userName+"]", cluster, opts); err != nil {
		return nil, err
	}
	ns := o.Namespace
	if ns == "" {
		ns = ctx.Namespace
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	return &ClientConfig{Config: cfg, Namespace: ns, Context: ctxName, Files: f.Files()}, nil
}

// resolve makes p absolute against the directory of origin.
func resolve(p, origin string) string {
	if p == "" || filepath.IsAbs(p) || origin == "" {
		return p
	}
	return filepath.Join(filepath.Dir(origin), p)
}

func applyCluster(cfg *rest.Config, c *Cluster, at, serverOverride string) error {
	server, field := c.Server, at+".server"
	if serverOverride != "" {
		server, field = serverOverride, "server override"
	}
	host, err := ParseServer(server)
	if err != nil {
		file := c.Origin
		if serverOverride != "" {
			file = ""
		}
		return fieldErr(file, field, err)
	}
	cfg.Host = host
	cfg.TLS.ServerName = c.TLSServerName
	cfg.DisableCompression = c.DisableCompression
	cfg.TLS.Insecure = c.InsecureSkipTLSVerify

	hasCA := c.CertificateAuthority != "" || len(c.CertificateAuthorityData) > 0
	if c.InsecureSkipTLSVerify && hasCA {
		return fieldErr(c.Origin, at+".insecure-skip-tls-verify", ErrInsecureWithCA)
	}
	switch {
	case len(c.CertificateAuthorityData) > 0:
		if err := checkCA(c.CertificateAuthorityData); err != nil {
			return fieldErr(c.Origin, at+".certificate-authority-data", err)
		}
		cfg.TLS.CAData = c.CertificateAuthorityData
	case c.CertificateAuthority != "":
		path := resolve(c.CertificateAuthority, c.Origin)
		data, err := readFile(path)
		if err != nil {
			return fieldErr(c.Origin, at+".certificate-authority", err)
		}
		if err := checkCA(data); err != nil {
			return fieldErr(c.Origin, at+".certificate-authority", err)
		}
		cfg.TLS.CAFile = path
	}

	if c.ProxyURL != "" {
		u, err := parseProxy(c.ProxyURL)
		if err != nil {
			return fieldErr(c.Origin, at+".proxy-url", err)
		}
		cfg.ProxyURL = u
	}
	return nil
}

// ParseServer checks a server URL and returns it in the form rest.Config
// wants. A URL without a scheme gets "https://". Valid: http and https
// URLs with a host, an optional port, and an optional path (a prefix for
// every request); IPv6 literals in brackets ("https://[::1]:6443").
// Errors wrap ErrInvalidServer and never quote the URL (it could carry
// credentials): a bare IPv6 address without brackets, user info, a query or
// fragment, another scheme, an empty host or a bad port.
func ParseServer(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidServer)
	}
	if !strings.Contains(s, "://") {
		if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
			return "", fmt.Errorf("%w: an IPv6 address must be in brackets, as https://[::1]:6443", ErrInvalidServer)
		}
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%w: does not parse as a URL", ErrInvalidServer)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("%w: scheme must be https or http", ErrInvalidServer)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: credentials in the URL are not allowed", ErrInvalidServer)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("%w: a query or fragment is not allowed", ErrInvalidServer)
	}
	if err := checkHostPort(u); err != nil {
		return "", fmt.Errorf("%w: %s", ErrInvalidServer, err)
	}
	return s, nil
}

func checkHostPort(u *url.URL) error {
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("no host")
	}
	if strings.Contains(host, ":") {
		if !strings.HasPrefix(u.Host, "[") {
			return fmt.Errorf("an IPv6 address must be in brackets")
		}
		if net.ParseIP(host) == nil {
			return fmt.Errorf("bad IPv6 address")
		}
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("bad port")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("empty port")
	}
	return nil
}

func parseProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: does not parse as a URL", ErrInvalidProxy)
	}
	switch u.Scheme {
	case "http", "https", "socks5":
	default:
		return nil, fmt.Errorf("%w: scheme must be http, https or socks5", ErrInvalidProxy)
	}
	if err := checkHostPort(u); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidProxy, err)
	}
	return u, nil
}

// checkCA verifies that data holds at least one PEM certificate and only
// parseable ones.
func checkCA(data []byte) error {
	n := 0
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidCA, err)
		}
		n++
	}
	if n == 0 {
		return ErrInvalidCA
	}
	return nil
}

func applyUser(cfg *rest.Config, u *User, at string, cluster *Cluster, opts Options) error {
	var methods []string
	if u.Token != "" || u.TokenFile != "" {
		methods = append(methods, "token")
	}
	if u.Username != "" || u.Password != "" {
		methods = append(methods, "username/password")
	}
	if u.Exec != nil {
		methods = append(methods, "exec")
	}
	if len(u.AuthProvider) > 0 && string(u.AuthProvider) != "null" {
		methods = append(methods, "auth-provider")
	}
	if len(methods) > 1 {
		return fieldErr(u.Origin, at, fmt.Errorf("%w: %s", ErrConflictingAuth, strings.Join(methods, ", ")))
	}

	plain := strings.HasPrefix(cfg.Host, "http://")
	if plain && len(methods) > 0 && !opts.AllowInsecureAuth {
		return fieldErr(u.Origin, at, fmt.Errorf("%w: %s", ErrInsecureAuth, methods[0]))
	}

	if err := applyClientCert(cfg, u, at, opts); err != nil {
		return err
	}

	switch {
	case len(methods) == 0:
	case methods[0] == "auth-provider":
		return fieldErr(u.Origin, at+".auth-provider", fmt.Errorf("%w: auth-provider plugins; use an exec plugin", ErrUnsupported))
	case methods[0] == "token" && u.TokenFile != "":
		// kubectl reads the file when both are given; so does this.
		path := resolve(u.TokenFile, u.Origin)
		if _, err := rest.ReadTokenFile(path); err != nil {
			return fieldErr(u.Origin, at+".tokenFile", err)
		}
		cfg.BearerTokenFile = path
	case methods[0] == "token":
		cfg.BearerToken = u.Token
	case methods[0] == "username/password":
		cfg.Username, cfg.Password = u.Username, u.Password
	case methods[0] == "exec":
		ex, err := newExec(u, cluster, cfg.Host, opts)
		if err != nil {
			field := at + ".exec"
			switch {
			case u.Exec.Command == "":
				field += ".command"
			case u.Exec.APIVersion == "" || u.Exec.APIVersion != auth.ExecAPIV1 && u.Exec.APIVersion != auth.ExecAPIV1beta1:
				field += ".apiVersion"
			}
			return fieldErr(u.Origin, field, err)
		}
		cfg.Auth = ex
		if !plain && cfg.TLS.ClientCertificates == nil && len(cfg.TLS.CertData) == 0 {
			cfg.TLS.ClientCertificates = ex
		}
	}

	cfg.Impersonate = rest.Impersonation{
		UserName: u.Impersonate,
		UID:      u.ImpersonateUID,
		Groups:   u.ImpersonateGroups,
		Extra:    u.ImpersonateUserExtra,
	}
	return nil
}

func applyClientCert(cfg *rest.Config, u *User, at string, opts Options) error {
	hasCert := u.ClientCertificate != "" || len(u.ClientCertificateData) > 0
	hasKey := u.ClientKey != "" || len(u.ClientKeyData) > 0
	switch {
	case !hasCert && !hasKey:
		return nil
	case !hasKey:
		return fieldErr(u.Origin, at+".client-key", ErrMissingKey)
	case !hasCert:
		return fieldErr(u.Origin, at+".client-certificate", ErrMissingCertificate)
	}
	if len(u.ClientCertificateData) == 0 && len(u.ClientKeyData) == 0 {
		// Both from files: reload them when they change.
		certPath, keyPath := resolve(u.ClientCertificate, u.Origin), resolve(u.ClientKey, u.Origin)
		cf, err := sharedCertFiles(auth.CertFilesOptions{CertFile: certPath, KeyFile: keyPath, Logger: opts.Logger})
		if err != nil {
			return fieldErr(u.Origin, at+".client-certificate", err)
		}
		cfg.TLS.CertFile, cfg.TLS.KeyFile = certPath, keyPath
		cfg.TLS.ClientCertificates = cf
		return nil
	}
	certPEM, keyPEM := u.ClientCertificateData, u.ClientKeyData
	if len(certPEM) == 0 {
		b, err := readFile(resolve(u.ClientCertificate, u.Origin))
		if err != nil {
			return fieldErr(u.Origin, at+".client-certificate", err)
		}
		certPEM = b
	}
	if len(keyPEM) == 0 {
		b, err := readFile(resolve(u.ClientKey, u.Origin))
		if err != nil {
			return fieldErr(u.Origin, at+".client-key", err)
		}
		keyPEM = b
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		// The tls error text describes structure only, never key bytes.
		return fieldErr(u.Origin, at+".client-certificate-data", fmt.Errorf("%w: %v", ErrInvalidCertificate, err))
	}
	cfg.TLS.CertData, cfg.TLS.KeyData = certPEM, keyPEM
	return nil
}

// newExec builds the exec authenticator for u.
func newExec(u *User, cluster *Cluster, server string, opts Options) (*auth.Exec, error) {
	e := u.Exec
	command := e.Command
	if strings.ContainsRune(command, filepath.Separator) || strings.ContainsRune(command, '/') {
		command = resolve(filepath.FromSlash(command), u.Origin)
	}
	ec := auth.ExecConfig{
		Command:            command,
		Args:               e.Args,
		APIVersion:         e.APIVersion,
		InstallHint:        e.InstallHint,
		ProvideClusterInfo: e.ProvideClusterInfo,
		InteractiveMode:    auth.InteractiveMode(e.InteractiveMode),
	}
	for _, v := range e.Env {
		ec.Env = append(ec.Env, auth.EnvVar{Name: v.Name, Value: v.Value})
	}
	if e.ProvideClusterInfo {
		ci := &auth.ExecCluster{
			Server:                   server,
			TLSServerName:            cluster.TLSServerName,
			InsecureSkipTLSVerify:    cluster.InsecureSkipTLSVerify,
			CertificateAuthorityData: cluster.CertificateAuthorityData,
			ProxyURL:                 cluster.ProxyURL,
			DisableCompression:       cluster.DisableCompression,
		}
		if len(ci.CertificateAuthorityData) == 0 && cluster.CertificateAuthority != "" {
			b, err := readFile(resolve(cluster.CertificateAuthority, cluster.Origin))
			if err != nil {
				return nil, err
			}
			ci.CertificateAuthorityData = b
		}
		for _, x := range cluster.Extensions {
			if x.Name == ExecExtensionName {
				ci.Config = x.Extension
			}
		}
		ec.Cluster = ci
	}
	eo := opts.Exec
	eo.Config = ec
	if eo.Logger == nil {
		eo.Logger = opts.Logger
	}
	return sharedExec(eo)
}
