package auth_test

import (
	"fmt"
	"time"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/rest"
)

// An exec credential plugin, wired into a rest.Config: the plugin's token
// goes on every request and its client certificate (if any) into TLS.
func ExampleNewExec() {
	ex, err := auth.NewExec(auth.ExecOptions{
		Config: auth.ExecConfig{
			Command:         "kubectl-login",
			Args:            []string{"get-token"},
			APIVersion:      auth.ExecAPIV1,
			InteractiveMode: auth.InteractiveNever,
			InstallHint:     "install kubectl-login from https://example.com",
		},
		Timeout: 30 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := &rest.Config{Host: "https://example.com:6443", Auth: ex}
	cfg.TLS.ClientCertificates = ex
	fmt.Println(cfg.Auth)
	// Output: auth.Exec{kubectl-login}
}
