// Package kubeconfig finds and reads the configuration a program uses to
// reach a Kubernetes cluster, the way kubectl does, and turns it into a
// *rest.Config.
//
// Most programs need one call:
//
//	cc, err := kubeconfig.Load(kubeconfig.Options{})
//	if err != nil { ... }
//	client, err := rest.NewClient(cc.Config)
//	// cc.Namespace is the namespace to work in; cc.Context the context used.
//
// # Where Load looks
//
// In order: Options.Path (like kubectl --kubeconfig); the files in
// $KUBECONFIG; the in-cluster service account (KUBERNETES_SERVICE_HOST,
// KUBERNETES_SERVICE_PORT and /var/run/secrets/kubernetes.io/serviceaccount);
// and ~/.kube/config. The environment, home directory and service-account
// directory are Options fields, so tests inject them.
//
// $KUBECONFIG files are merged like kubectl merges them: for every cluster,
// user and context name, the first file that defines it wins, whole; the
// current-context comes from the first file that sets one; missing files
// are skipped. Relative paths in a file (certificates, keys, token files,
// an exec command with a slash) resolve against that file's directory.
//
// # What a kubeconfig can say
//
// Clusters: server, certificate-authority(-data), insecure-skip-tls-verify,
// tls-server-name, proxy-url. Users: client-certificate(-data),
// client-key(-data), token, tokenFile, username/password, exec (see
// package auth), and impersonation (as, as-uid, as-groups, as-user-extra).
// Contexts: cluster, user, namespace (default "default"). Overrides replace
// the context, cluster, user, server or namespace. Unknown fields are
// ignored; preferences and extensions are read but not used, except the
// cluster extension "client.authentication.k8s.io/exec", which exec
// plugins with provideClusterInfo receive.
//
// Token files, client certificate files and exec plugins become auth
// authenticators (rest.Config.Auth, rest.TLSConfig.ClientCertificates),
// so rotated tokens and certificates are picked up without a restart.
// Every Config loaded in a process for the same exec plugin configuration
// (or the same pair of certificate files) holds the same *auth.Exec (or
// *auth.CertFiles) while any of them is in use: the plugin runs once for
// all of them, and their clients share one connection pool, as they do for
// a proxy-url (rest.Config.ProxyURL). An exec plugin is shared only when
// Options.Exec sets none of Terminal, Environ, Runner and Clock.
// auth-provider plugins are not supported (ErrUnsupported): use exec.
//
// # Errors
//
// Every error is an *Error naming the file and the field
// ("users[alice].client-key"), wrapping a sentinel such as
// ErrNoCurrentContext, ErrClusterNotFound, ErrInvalidServer or
// ErrConflictingAuth (test with errors.Is). Errors never contain secret
// values. Only the entries the chosen context uses are validated: a broken
// entry elsewhere in the file does not stop you. Files are bounded
// (MaxFileSize) and YAML aliases may not expand a document far beyond its
// size (ErrAliasBomb).
//
// Server URLs: "https://host:port" with an optional path prefix; a URL
// without a scheme gets https; IPv6 literals must be bracketed
// ("https://[::1]:6443"). Credentials, queries and fragments in the URL are
// errors. insecure-skip-tls-verify together with a CA is an error, as in
// kubectl.
//
// # Writing
//
// Write stores a File atomically with mode 0600; Minify reduces a File to
// one context (optionally inlining certificate files); FromRESTConfig
// describes a *rest.Config as a File, for tools that hand a cluster to
// kubectl.
//
// Files and ClientConfigs are plain data, not safe for concurrent mutation;
// the authenticators inside a rest.Config are safe for concurrent use.
package kubeconfig
