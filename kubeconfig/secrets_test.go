package kubeconfig

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubego/kubego/auth"
)

// Written files keep every credential, although User and ExecEnvVar
// redact them when printed or encoded with encoding/json.
func TestMarshalWritesTheSecretsThatPrintingRedacts(t *testing.T) {
	u := &User{Token: "tok-secret", Username: "me", Password: "pw-secret", ClientKeyData: []byte("key-secret"),
		AuthProvider: json.RawMessage(`{"config":{"id-token":"provider-secret"},"name":"oidc"}`),
		Exec:         &Exec{Command: "plugin", APIVersion: "client.authentication.k8s.io/v1", Env: []ExecEnvVar{{Name: "K", Value: "env-secret"}}}}
	f := &File{Users: map[string]*User{"u": u}, Clusters: map[string]*Cluster{}, Contexts: map[string]*Context{}}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "")
	if err != nil {
		t.Fatal(err)
	}
	got := back.Users["u"]
	got.Origin = ""
	if diff := cmp.Diff((*plainUser)(u), (*plainUser)(got)); diff != "" {
		t.Errorf("read back (-want +got):\n%s\nfrom:\n%s", diff, data)
	}
	for _, x := range []any{u, *u, u.Exec, u.Exec.Env[0], f} {
		j, _ := json.Marshal(x)
		s := string(j) + fmt.Sprintf("%v %+v %#v %s", x, x, x, x)
		for _, secret := range []string{"tok-secret", "pw-secret", "provider-secret", "env-secret"} {
			if strings.Contains(s, secret) {
				t.Errorf("%T prints %s: %s", x, secret, s)
			}
		}
	}
}

// Exec configurations that differ only in the value of a variable are not
// shared, although auth.EnvVar redacts its value in encoding/json.
func TestSharedExecTellsEnvValuesApart(t *testing.T) {
	cfg := func(v string) auth.ExecOptions {
		return auth.ExecOptions{Config: auth.ExecConfig{Command: "plugin", APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveNever,
			Env: []auth.EnvVar{{Name: "KEY", Value: v}}}}
	}
	a, err := sharedExec(cfg("one"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sharedExec(cfg("two"))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := sharedExec(cfg("one"))
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("configurations with other variable values share one Exec")
	}
	if a != a2 {
		t.Error("equal configurations do not share one Exec")
	}
}
