package kubeconfig

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// File is a kubeconfig: named clusters, users and contexts, and the current
// context. It is plain data; the zero value is an empty kubeconfig (nil maps
// read as empty; make them before adding entries). A File is not safe for
// concurrent mutation.
//
// Preferences and top-level extensions are ignored when reading and not
// written.
type File struct {
	Clusters       map[string]*Cluster
	Users          map[string]*User
	Contexts       map[string]*Context
	CurrentContext string

	// currentFrom is the file current-context was read from.
	currentFrom string
	// files are the files this File was read from, in order.
	files []string
}

// Files returns the paths this File was read from, in load order (empty
// for a File built in memory).
func (f *File) Files() []string { return append([]string(nil), f.files...) }

// Cluster is how to reach one API server (a "clusters" entry).
type Cluster struct {
	Server                   string      `json:"server"`
	TLSServerName            string      `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool        `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthority     string      `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte      `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string      `json:"proxy-url,omitempty"`
	DisableCompression       bool        `json:"disable-compression,omitempty"`
	Extensions               []Extension `json:"extensions,omitempty"`

	// Origin is the file this entry was read from; relative paths in it
	// resolve against that file's directory. Not written.
	Origin string `json:"-"`
}

// Extension is a named, opaque extension. The one named ExecExtensionName
// on a cluster is passed to exec plugins with provideClusterInfo.
type Extension struct {
	Name      string          `json:"name"`
	Extension json.RawMessage `json:"extension"`
}

// ExecExtensionName is the cluster extension whose value exec plugins
// receive as spec.cluster.config.
const ExecExtensionName = "client.authentication.k8s.io/exec"

// User holds credentials (a "users" entry; AuthInfo in client-go). Its
// String and GoString methods never show secrets, nor do its Format,
// LogValue and MarshalJSON.
type User struct {
	ClientCertificate     string `json:"client-certificate,omitempty"`
	ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
	ClientKey             string `json:"client-key,omitempty"`
	ClientKeyData         []byte `json:"client-key-data,omitempty"`
	Token                 string `json:"token,omitempty"`
	TokenFile             string `json:"tokenFile,omitempty"`

	Impersonate          string              `json:"as,omitempty"`
	ImpersonateUID       string              `json:"as-uid,omitempty"`
	ImpersonateGroups    []string            `json:"as-groups,omitempty"`
	ImpersonateUserExtra map[string][]string `json:"as-user-extra,omitempty"`

	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`

	// AuthProvider is kept as read so that writing a File preserves it;
	// building a config from a user with one fails with ErrUnsupported.
	AuthProvider json.RawMessage `json:"auth-provider,omitempty"`
	Exec         *Exec           `json:"exec,omitempty"`

	// Origin is the file this entry was read from. Not written.
	Origin string `json:"-"`
}

// String describes u without its secrets (token, password, key data,
// exec environment values). It has a value receiver, so a User printed as
// a value is redacted as well as a *User (fmt prints a nil *User as
// "<nil>").
func (u User) String() string {
	return fmt.Sprintf("kubeconfig.User{ClientCertificate: %q, ClientKey: %q, TokenFile: %q, Username: %q, Impersonate: %q, Exec: %v, secrets: <redacted>}",
		u.ClientCertificate, u.ClientKey, u.TokenFile, u.Username, u.Impersonate, u.Exec != nil)
}

// GoString is like String.
func (u User) GoString() string { return u.String() }

// Format makes every fmt verb (%v, %+v, %#v, %s, %q …) print String.
func (u User) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, u.String()) }

// LogValue makes log/slog print String.
func (u User) LogValue() slog.Value { return slog.StringValue(u.String()) }

// MarshalJSON encodes String as a JSON string, so that encoding/json (a
// JSON log, a debug dump) does not carry the secrets either. Marshal and
// Write, which write kubeconfig files, write them whole.
func (u User) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// Exec is a user's exec credential plugin section.
type Exec struct {
	Command            string       `json:"command"`
	Args               []string     `json:"args,omitempty"`
	Env                []ExecEnvVar `json:"env,omitempty"`
	APIVersion         string       `json:"apiVersion,omitempty"`
	InstallHint        string       `json:"installHint,omitempty"`
	ProvideClusterInfo bool         `json:"provideClusterInfo,omitempty"`
	InteractiveMode    string       `json:"interactiveMode,omitempty"`
}

// ExecEnvVar is one environment variable of an exec plugin. Its Value may
// be a secret (a cloud access key): printing an ExecEnvVar with fmt,
// log/slog or encoding/json shows its Name only.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// String shows the variable's name, not its value.
func (e ExecEnvVar) String() string { return fmt.Sprintf("{Name: %q, Value: <redacted>}", e.Name) }

// GoString is like String.
func (e ExecEnvVar) GoString() string { return e.String() }

// Format makes every fmt verb print String.
func (e ExecEnvVar) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, e.String()) }

// LogValue makes log/slog print String.
func (e ExecEnvVar) LogValue() slog.Value { return slog.StringValue(e.String()) }

// MarshalJSON encodes the name with the value redacted. Marshal and Write
// write the value.
func (e ExecEnvVar) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}{e.Name, "<redacted>"})
}

// Context ties a cluster, a user and a default namespace together.
type Context struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace,omitempty"`

	// Origin is the file this entry was read from. Not written.
	Origin string `json:"-"`
}

// wireFileOf is the on-disk layout (apiVersion v1, kind Config), with
// users of type U: wireFile as read, wireFileOut as Marshal writes it.
type wireFileOf[U any] struct {
	APIVersion     string        `json:"apiVersion,omitempty"`
	Kind           string        `json:"kind,omitempty"`
	Preferences    struct{}      `json:"preferences"`
	Clusters       []wireCluster `json:"clusters"`
	Contexts       []wireContext `json:"contexts"`
	CurrentContext string        `json:"current-context"`
	Users          []U           `json:"users"`
}

type (
	wireFile    = wireFileOf[wireUser]
	wireFileOut = wireFileOf[wireUserOut]
)

type wireCluster struct {
	Name    string   `json:"name"`
	Cluster *Cluster `json:"cluster"`
}

type wireUser struct {
	Name string `json:"name"`
	User *User  `json:"user"`
}

// The file format writes what User and ExecEnvVar redact elsewhere:
// writeUser is a User without its methods, whose exec section's
// variables are written without theirs. Fields added to User and Exec are
// written without a change here.
type (
	writeUser struct {
		*plainUser
		Exec *writeExec `json:"exec,omitempty"`
	}
	plainUser User
	writeExec struct {
		*Exec
		Env []plainEnvVar `json:"env,omitempty"`
	}
	plainEnvVar ExecEnvVar
	// wireUserOut is wireUser as written.
	wireUserOut struct {
		Name string     `json:"name"`
		User *writeUser `json:"user"`
	}
)

// forWriting returns u as the file format writes it.
func forWriting(u *User) *writeUser {
	if u == nil {
		return nil
	}
	w := &writeUser{plainUser: (*plainUser)(u)}
	if u.Exec != nil {
		w.Exec = &writeExec{Exec: u.Exec}
		for _, e := range u.Exec.Env {
			w.Exec.Env = append(w.Exec.Env, plainEnvVar(e))
		}
	}
	return w
}

type wireContext struct {
	Name    string   `json:"name"`
	Context *Context `json:"context"`
}
