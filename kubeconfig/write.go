package kubeconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/rest"
)

// Marshal encodes f as a kubeconfig YAML document (apiVersion v1, kind
// Config), entries sorted by name. Paths are written as they are in f; see
// Minify to make them absolute or inline them.
func Marshal(f *File) ([]byte, error) {
	w := wireFileOut{APIVersion: "v1", Kind: "Config", CurrentContext: f.CurrentContext,
		Clusters: []wireCluster{}, Contexts: []wireContext{}, Users: []wireUserOut{}}
	for _, k := range sortedKeys(f.Clusters) {
		w.Clusters = append(w.Clusters, wireCluster{Name: k, Cluster: f.Clusters[k]})
	}
	for _, k := range sortedKeys(f.Contexts) {
		w.Contexts = append(w.Contexts, wireContext{Name: k, Context: f.Contexts[k]})
	}
	for _, k := range sortedKeys(f.Users) {
		w.Users = append(w.Users, wireUserOut{Name: k, User: forWriting(f.Users[k])})
	}
	b, err := yaml.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: encoding: %w", err)
	}
	return b, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Write writes f to path with mode 0600, atomically: it writes a temporary
// file in the same directory and renames it over path, so readers never
// see a partial file. The directory is created (mode 0700) if needed.
func Write(path string, f *File) error {
	data, err := Marshal(f)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &Error{File: path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, ".kubeconfig-*")
	if err != nil {
		return &Error{File: path, Err: err}
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return &Error{File: path, Err: err}
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return &Error{File: path, Err: err}
	}
	if err := tmp.Close(); err != nil {
		return &Error{File: path, Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &Error{File: path, Err: err}
	}
	return nil
}

// MinifyOptions configures Minify.
type MinifyOptions struct {
	// Context is kept instead of the current context.
	Context string
	// Inline replaces certificate-authority, client-certificate and
	// client-key paths with their content (the -data fields), giving a
	// self-contained file. tokenFile stays a path: it rotates.
	Inline bool
}

// Minify returns a new File holding only one context (the current one, or
// opts.Context) with its cluster and user, and that context as current.
// Relative paths are made absolute (or inlined with opts.Inline). f is not
// modified; the result shares no entries with it. Errors are *Error:
// ErrNoCurrentContext, ErrContextNotFound, ErrClusterNotFound,
// ErrUserNotFound, or an fs error while inlining.
func Minify(f *File, opts MinifyOptions) (*File, error) {
	name := opts.Context
	if name == "" {
		name = f.CurrentContext
	}
	if name == "" {
		return nil, &Error{Field: "current-context", Err: ErrNoCurrentContext}
	}
	ctx := f.Contexts[name]
	if ctx == nil {
		return nil, &Error{File: f.currentFrom, Field: "current-context", Err: fmt.Errorf("%w: %q", ErrContextNotFound, name)}
	}
	out := &File{
		Clusters:       map[string]*Cluster{},
		Users:          map[string]*User{},
		Contexts:       map[string]*Context{name: {Cluster: ctx.Cluster, User: ctx.User, Namespace: ctx.Namespace}},
		CurrentContext: name,
	}
	c := f.Clusters[ctx.Cluster]
	if c == nil {
		return nil, &Error{File: ctx.Origin, Field: "contexts[" + name + "].cluster", Err: fmt.Errorf("%w: %q", ErrClusterNotFound, ctx.Cluster)}
	}
	cc := *c
	cc.Extensions = slices.Clone(c.Extensions)
	cc.CertificateAuthority = resolve(c.CertificateAuthority, c.Origin)
	if opts.Inline && cc.CertificateAuthority != "" {
		b, err := readFile(cc.CertificateAuthority)
		if err != nil {
			return nil, &Error{File: c.Origin, Field: "clusters[" + ctx.Cluster + "].certificate-authority", Err: err}
		}
		cc.CertificateAuthorityData, cc.CertificateAuthority = b, ""
	}
	cc.Origin = ""
	out.Clusters[ctx.Cluster] = &cc

	if ctx.User != "" {
		u := f.Users[ctx.User]
		if u == nil {
			return nil, &Error{File: ctx.Origin, Field: "contexts[" + name + "].user", Err: fmt.Errorf("%w: %q", ErrUserNotFound, ctx.User)}
		}
		uc := *u
		at := "users[" + ctx.User + "]"
		uc.ClientCertificate = resolve(u.ClientCertificate, u.Origin)
		uc.ClientKey = resolve(u.ClientKey, u.Origin)
		uc.TokenFile = resolve(u.TokenFile, u.Origin)
		if uc.Exec != nil {
			ex := *uc.Exec
			if filepath.Base(ex.Command) != ex.Command {
				ex.Command = resolve(ex.Command, u.Origin)
			}
			uc.Exec = &ex
		}
		if opts.Inline {
			for _, p := range []struct {
				path *string
				data *[]byte
				name string
			}{{&uc.ClientCertificate, &uc.ClientCertificateData, ".client-certificate"}, {&uc.ClientKey, &uc.ClientKeyData, ".client-key"}} {
				if *p.path == "" {
					continue
				}
				b, err := readFile(*p.path)
				if err != nil {
					return nil, &Error{File: u.Origin, Field: at + p.name, Err: err}
				}
				*p.data, *p.path = b, ""
			}
		}
		uc.Origin = ""
		out.Users[ctx.User] = &uc
	}
	return out, nil
}

// FromRESTConfig describes cfg as a kubeconfig with one cluster, one user
// and one context, all named contextName, the context current and set to
// namespace (empty: none). It carries the server, TLS settings (files as
// paths, data inline), bearer token or token file, basic auth and
// impersonation. An Auth that is an *auth.Exec is written as its exec
// section. Other func and interface fields (other Authenticators,
// TLS.GetClientCertificate, Proxy, WrapTransport) cannot be written and are
// left out. The result shares byte slices with cfg.
func FromRESTConfig(cfg *rest.Config, contextName, namespace string) *File {
	c := &Cluster{
		Server:                   cfg.Host,
		TLSServerName:            cfg.TLS.ServerName,
		InsecureSkipTLSVerify:    cfg.TLS.Insecure,
		CertificateAuthority:     cfg.TLS.CAFile,
		CertificateAuthorityData: cfg.TLS.CAData,
	}
	if len(c.CertificateAuthorityData) > 0 {
		c.CertificateAuthority = ""
	}
	u := &User{
		ClientCertificate:     cfg.TLS.CertFile,
		ClientCertificateData: cfg.TLS.CertData,
		ClientKey:             cfg.TLS.KeyFile,
		ClientKeyData:         cfg.TLS.KeyData,
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		Username:              cfg.Username,
		Password:              cfg.Password,
		Impersonate:           cfg.Impersonate.UserName,
		ImpersonateUID:        cfg.Impersonate.UID,
		ImpersonateGroups:     cfg.Impersonate.Groups,
		ImpersonateUserExtra:  cfg.Impersonate.Extra,
	}
	switch a := cfg.Auth.(type) {
	case *auth.Exec:
		ec := a.Config()
		e := &Exec{Command: ec.Command, Args: ec.Args, APIVersion: ec.APIVersion, InstallHint: ec.InstallHint,
			ProvideClusterInfo: ec.ProvideClusterInfo, InteractiveMode: string(ec.InteractiveMode)}
		for _, v := range ec.Env {
			e.Env = append(e.Env, ExecEnvVar{Name: v.Name, Value: v.Value})
		}
		u.Exec = e
	}
	if len(u.ClientCertificateData) > 0 {
		u.ClientCertificate = ""
	}
	if len(u.ClientKeyData) > 0 {
		u.ClientKey = ""
	}
	return &File{
		Clusters:       map[string]*Cluster{contextName: c},
		Users:          map[string]*User{contextName: u},
		Contexts:       map[string]*Context{contextName: {Cluster: contextName, User: contextName, Namespace: namespace}},
		CurrentContext: contextName,
	}
}
