package auth

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// Exec credential API versions.
const (
	ExecAPIV1      = "client.authentication.k8s.io/v1"
	ExecAPIV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// InteractiveMode says whether an exec plugin may use the terminal.
type InteractiveMode string

const (
	// InteractiveNever: the plugin never gets stdin.
	InteractiveNever InteractiveMode = "Never"
	// InteractiveIfAvailable: the plugin gets stdin when it is a terminal.
	// The default for v1beta1 when unset.
	InteractiveIfAvailable InteractiveMode = "IfAvailable"
	// InteractiveAlways: the plugin needs a terminal; without one it is not
	// run and ErrInteractiveRequired is returned.
	InteractiveAlways InteractiveMode = "Always"
)

// ExecConfig is an exec plugin as a kubeconfig user's "exec" section
// describes it.
type ExecConfig struct {
	// Command is the program to run, looked up in PATH when it has no
	// path separator.
	Command string
	Args    []string
	// Env is added to the process environment (later entries win).
	Env []EnvVar
	// APIVersion is ExecAPIV1 or ExecAPIV1beta1 (required).
	APIVersion string
	// InstallHint is shown in the error when Command is not found.
	InstallHint string
	// ProvideClusterInfo passes Cluster to the plugin in
	// KUBERNETES_EXEC_INFO.
	ProvideClusterInfo bool
	// InteractiveMode is required for v1; for v1beta1 empty means
	// IfAvailable.
	InteractiveMode InteractiveMode
	// Cluster describes the cluster being authenticated to; sent only when
	// ProvideClusterInfo is set.
	Cluster *ExecCluster
}

// EnvVar is one environment variable for a plugin. Its Value may be a
// secret (a cloud access key): printing an EnvVar, or an ExecConfig
// holding it, with fmt (%v, %+v, %#v …), log/slog or encoding/json shows
// its Name only.
type EnvVar struct {
	Name  string
	Value string
}

// String shows the variable's name, not its value.
func (e EnvVar) String() string { return fmt.Sprintf("{Name: %q, Value: <redacted>}", e.Name) }

// GoString is like String.
func (e EnvVar) GoString() string { return e.String() }

// Format makes every fmt verb print String.
func (e EnvVar) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, e.String()) }

// LogValue makes log/slog print String.
func (e EnvVar) LogValue() slog.Value { return slog.StringValue(e.String()) }

// MarshalJSON encodes the name with the value redacted, so encoding/json
// (a JSON log, a debug dump) does not carry it either.
func (e EnvVar) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Name, Value string }{e.Name, "<redacted>"})
}

// ExecCluster is the cluster information given to a plugin, in the
// ExecCredential wire format.
type ExecCluster struct {
	Server                   string          `json:"server"`
	TLSServerName            string          `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool            `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte          `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string          `json:"proxy-url,omitempty"`
	DisableCompression       bool            `json:"disable-compression,omitempty"`
	Config                   json.RawMessage `json:"config,omitempty"`
}

// validate checks the configuration and returns it with defaults applied.
// Errors wrap ErrExecConfig.
func (c ExecConfig) validate() (ExecConfig, error) {
	if c.Command == "" {
		return c, fmt.Errorf("%w: command is empty", ErrExecConfig)
	}
	switch c.APIVersion {
	case ExecAPIV1, ExecAPIV1beta1:
	case "":
		return c, fmt.Errorf("%w: apiVersion is required", ErrExecConfig)
	default:
		return c, fmt.Errorf("%w: apiVersion %q is not supported (use %s or %s)", ErrExecConfig, c.APIVersion, ExecAPIV1, ExecAPIV1beta1)
	}
	if c.Cluster != nil && len(c.Cluster.Config) > 0 && !json.Valid(c.Cluster.Config) {
		return c, fmt.Errorf("%w: cluster config extension is not valid JSON", ErrExecConfig)
	}
	switch c.InteractiveMode {
	case InteractiveNever, InteractiveIfAvailable, InteractiveAlways:
	case "":
		if c.APIVersion == ExecAPIV1 {
			return c, fmt.Errorf("%w: interactiveMode is required for %s", ErrExecConfig, ExecAPIV1)
		}
		c.InteractiveMode = InteractiveIfAvailable
	default:
		return c, fmt.Errorf("%w: interactiveMode %q is not Never, IfAvailable or Always", ErrExecConfig, c.InteractiveMode)
	}
	return c, nil
}

// Validate reports whether c is a usable plugin configuration: a command,
// a supported apiVersion and a known interactiveMode (required for v1).
// Errors wrap ErrExecConfig.
func (c ExecConfig) Validate() error {
	_, err := c.validate()
	return err
}
