package testenv

import (
	"fmt"

	"github.com/kubego/kubego/kubeconfig"
)

// KubeconfigContext is the name of the context (and of its cluster and user)
// in files written by WriteKubeconfig.
const KubeconfigContext = "kubego-testenv"

// WriteKubeconfig writes a kubeconfig file for the admin identity of the
// first kube-apiserver, with one context named KubeconfigContext (namespace
// "default") that is also the current context. The file holds a private key:
// it is written atomically with mode 0600.
func (cp *ControlPlane) WriteKubeconfig(path string) error {
	f := kubeconfig.FromRESTConfig(cp.Config(), KubeconfigContext, "default")
	if err := kubeconfig.Write(path, f); err != nil {
		return fmt.Errorf("testenv: writing kubeconfig: %w", err)
	}
	return nil
}
