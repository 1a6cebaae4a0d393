package auth

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kubego/kubego/internal/secret"
)

// execCredential is the ExecCredential object, in both v1 and v1beta1 (the
// two have the same shape).
type execCredential struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Spec       execSpec    `json:"spec"`
	Status     *execStatus `json:"status,omitempty"`
}

type execSpec struct {
	Cluster     *ExecCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

type execStatus struct {
	ExpirationTimestamp   *time.Time `json:"expirationTimestamp,omitempty"`
	Token                 string     `json:"token,omitempty"`
	ClientCertificateData string     `json:"clientCertificateData,omitempty"`
	ClientKeyData         string     `json:"clientKeyData,omitempty"`
}

// credential is what a plugin run produced.
type credential struct {
	token  secret.Value
	cert   *tls.Certificate
	expiry time.Time // zero: never expires
}

// execInfo is the KUBERNETES_EXEC_INFO value.
func execInfo(c ExecConfig, interactive bool) string {
	in := execCredential{APIVersion: c.APIVersion, Kind: "ExecCredential", Spec: execSpec{Interactive: interactive}}
	if c.ProvideClusterInfo && c.Cluster != nil {
		in.Spec.Cluster = c.Cluster
	}
	b, _ := json.Marshal(in) // cannot fail: plain data and RawMessage checked by the caller
	return string(b)
}

// parseCredential decodes a plugin's stdout. Errors wrap ErrExecOutput and
// never quote the output (it carries the credential).
func parseCredential(out []byte, apiVersion string) (*credential, error) {
	var ec execCredential
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&ec); err != nil {
		return nil, fmt.Errorf("%w: stdout is not an ExecCredential JSON object", ErrExecOutput)
	}
	if ec.Kind != "ExecCredential" {
		return nil, fmt.Errorf("%w: kind is %q, want ExecCredential", ErrExecOutput, truncate(ec.Kind, 64))
	}
	if ec.APIVersion != apiVersion {
		return nil, fmt.Errorf("%w: apiVersion is %q, want %q as configured", ErrExecOutput, truncate(ec.APIVersion, 64), apiVersion)
	}
	st := ec.Status
	if st == nil {
		return nil, fmt.Errorf("%w: no status", ErrExecOutput)
	}
	c := &credential{token: secret.New(st.Token)}
	if st.ExpirationTimestamp != nil {
		c.expiry = *st.ExpirationTimestamp
	}
	if !validToken(st.Token) {
		return nil, fmt.Errorf("%w: status.token: %w", ErrExecOutput, ErrInvalidToken)
	}
	switch {
	case st.ClientCertificateData != "" && st.ClientKeyData != "":
		pair, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, fmt.Errorf("%w: status.clientCertificateData/clientKeyData: %w: %v", ErrExecOutput, ErrInvalidCertificate, err)
		}
		c.cert = &pair
	case st.ClientCertificateData != "":
		return nil, fmt.Errorf("%w: status.clientCertificateData without clientKeyData", ErrExecOutput)
	case st.ClientKeyData != "":
		return nil, fmt.Errorf("%w: status.clientKeyData without clientCertificateData", ErrExecOutput)
	}
	if st.Token == "" && c.cert == nil {
		return nil, fmt.Errorf("%w: status has neither a token nor a client certificate", ErrExecOutput)
	}
	return c, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
