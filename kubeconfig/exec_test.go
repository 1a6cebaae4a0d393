package kubeconfig_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/kubeconfig"
)

func TestExecSectionReachesThePlugin(t *testing.T) {
	var got auth.Command
	runner := auth.RunnerFunc(func(_ context.Context, c auth.Command) ([]byte, []byte, error) {
		got = c
		return []byte(`{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"plugin-token"}}`), nil, nil
	})
	path := abs(t, "testdata/kubectl.yaml")
	cc, err := kubeconfig.Load(kubeconfig.Options{
		Path:      path,
		Overrides: kubeconfig.Overrides{Context: "eks"},
		Exec:      auth.ExecOptions{Runner: runner, Environ: func() []string { return nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	var header string
	rt := cc.Config.Auth.WrapTransport(roundTrip(func(r *http.Request) (*http.Response, error) {
		header = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest("GET", cc.Config.Host+"/api", nil)
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if header != "Bearer plugin-token" {
		t.Fatalf("Authorization = %q", header)
	}
	if got.Path != "aws" || strings.Join(got.Args, " ") != "eks get-token --cluster-name prod" || got.Env[0] != "AWS_PROFILE=prod" {
		t.Fatalf("command %q %q env %q", got.Path, got.Args, got.Env)
	}
	var info struct {
		Spec struct {
			Cluster struct {
				Server                   string          `json:"server"`
				CertificateAuthorityData []byte          `json:"certificate-authority-data"`
				Config                   json.RawMessage `json:"config"`
			} `json:"cluster"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(got.Env[len(got.Env)-1], "KUBERNETES_EXEC_INFO=")), &info); err != nil {
		t.Fatal(err)
	}
	c := info.Spec.Cluster
	if c.Server != "https://eks.example.com" || len(c.CertificateAuthorityData) == 0 || string(c.Config) != `{"audience":"sts.example.com"}` {
		t.Fatalf("cluster info %+v", c)
	}
}

func TestExecRelativeCommandResolvesAgainstTheFile(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, filepath.Join(dir, "config"), kc(okCluster,
		"    exec: {command: ./bin/login, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}\n"))
	var got string
	runner := auth.RunnerFunc(func(_ context.Context, c auth.Command) ([]byte, []byte, error) {
		got = c.Path
		return []byte(`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"x"}}`), nil, nil
	})
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path, Exec: auth.ExecOptions{Runner: runner}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Config.TLS.ClientCertificates.GetClientCertificate(nil); err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(dir, "bin", "login") {
		t.Fatalf("command %q", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDuplicateNamesInOneFileFirstWins(t *testing.T) {
	f, err := kubeconfig.Parse([]byte("clusters:\n- {name: a, cluster: {server: \"https://first:1\"}}\n- {name: a, cluster: {server: \"https://second:1\"}}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Clusters["a"].Server != "https://first:1" {
		t.Fatalf("server %q", f.Clusters["a"].Server)
	}
}
