package testenv

import (
	"encoding/base64"
	"fmt"
	"os"
)

// WriteKubeconfig writes a kubeconfig file for the admin identity of the
// first kube-apiserver, with one context named "kubego-testenv" that is also
// the current context. The file holds a private key, so it is written 0600.
func (cp *ControlPlane) WriteKubeconfig(path string) error {
	cfg := cp.Config()
	b64 := base64.StdEncoding.EncodeToString
	doc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubego-testenv
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: kubego-admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: kubego-testenv
  context:
    cluster: kubego-testenv
    user: kubego-admin
    namespace: default
current-context: kubego-testenv
`, cfg.Host, b64(cfg.TLS.CAData), b64(cfg.TLS.CertData), b64(cfg.TLS.KeyData))
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		return fmt.Errorf("testenv: writing kubeconfig: %w", err)
	}
	return nil
}
