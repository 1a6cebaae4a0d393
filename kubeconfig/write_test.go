package kubeconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

func TestWriteThenReadRoundTrips(t *testing.T) {
	f, err := kubeconfig.ReadFile("testdata/kubectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "config")
	if err := kubeconfig.Write(path, f); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat %v %v; want mode 0600", fi, err)
	}
	g, err := kubeconfig.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []any{f.Clusters, f.Users, f.Contexts} {
		_ = m
	}
	if g.CurrentContext != f.CurrentContext || len(g.Clusters) != len(f.Clusters) || len(g.Users) != len(f.Users) || len(g.Contexts) != len(f.Contexts) {
		t.Fatalf("round trip lost entries")
	}
	for k, u := range f.Users {
		v := *g.Users[k]
		w := *u
		v.Origin, w.Origin = "", ""
		if !reflect.DeepEqual(v, w) {
			t.Errorf("user %s: %v != %v", k, &v, &w)
		}
	}
	for k, c := range f.Clusters {
		v, w := *g.Clusters[k], *c
		v.Origin, w.Origin = "", ""
		if !reflect.DeepEqual(v, w) {
			t.Errorf("cluster %s differs", k)
		}
	}
}

func TestMinifyKeepsOneContextAndInlines(t *testing.T) {
	f, err := kubeconfig.ReadFile("testdata/minikube.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := kubeconfig.Minify(f, kubeconfig.MinifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Clusters["minikube"].CertificateAuthority != abs(t, "testdata/pki/ca.crt") {
		t.Fatalf("CA path %q, want absolute", m.Clusters["minikube"].CertificateAuthority)
	}
	if f.Clusters["minikube"].CertificateAuthority != "pki/ca.crt" {
		t.Fatal("Minify modified its input")
	}
	in, err := kubeconfig.Minify(f, kubeconfig.MinifyOptions{Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	c, u := in.Clusters["minikube"], in.Users["minikube"]
	if c.CertificateAuthority != "" || string(c.CertificateAuthorityData) != string(read(t, "testdata/pki/ca.crt")) ||
		u.ClientCertificate != "" || u.ClientKey != "" || len(u.ClientKeyData) == 0 {
		t.Fatalf("not inlined: %+v %v", c, u)
	}
	// The inlined file loads from anywhere.
	path := filepath.Join(t.TempDir(), "config")
	if err := kubeconfig.Write(path, in); err != nil {
		t.Fatal(err)
	}
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(cc.Config.TLS.CertData) == 0 || len(cc.Config.TLS.CAData) == 0 {
		t.Fatal("loaded minified config lacks inline data")
	}

	k, err := kubeconfig.ReadFile("testdata/kubectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err = kubeconfig.Minify(k, kubeconfig.MinifyOptions{Context: "prod-as-ops"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clusters) != 1 || len(m.Users) != 1 || len(m.Contexts) != 1 || m.CurrentContext != "prod-as-ops" || m.Users["ops"].TokenFile != abs(t, "testdata/tokens/ops") {
		t.Fatalf("minified: %d clusters %d users %d contexts, current %q", len(m.Clusters), len(m.Users), len(m.Contexts), m.CurrentContext)
	}
	if _, err := kubeconfig.Minify(k, kubeconfig.MinifyOptions{Context: "nope"}); !errors.Is(err, kubeconfig.ErrContextNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestFromRESTConfigLoadsBack(t *testing.T) {
	ca := read(t, "testdata/pki/ca.crt")
	cfg := &rest.Config{
		Host:        "https://127.0.0.1:6443",
		TLS:         rest.TLSConfig{CAData: ca, CertData: read(t, "testdata/pki/client.crt"), KeyData: read(t, "testdata/pki/client.key"), ServerName: "kubernetes"},
		BearerToken: "tok",
		Impersonate: rest.Impersonation{UserName: "bob", Groups: []string{"g"}},
	}
	f := kubeconfig.FromRESTConfig(cfg, "testenv", "work")
	path := filepath.Join(t.TempDir(), "config")
	if err := kubeconfig.Write(path, f); err != nil {
		t.Fatal(err)
	}
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Config
	if got.Host != cfg.Host || string(got.TLS.CAData) != string(ca) || string(got.TLS.KeyData) != string(cfg.TLS.KeyData) ||
		got.TLS.ServerName != "kubernetes" || got.BearerToken != "tok" || got.Impersonate.UserName != "bob" ||
		cc.Namespace != "work" || cc.Context != "testenv" {
		t.Fatalf("round trip: %+v ns %q ctx %q", got, cc.Namespace, cc.Context)
	}
}

func TestFromRESTConfigWritesAuthenticators(t *testing.T) {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: "testdata/kubectl.yaml", Overrides: kubeconfig.Overrides{Context: "eks"}})
	if err != nil {
		t.Fatal(err)
	}
	f := kubeconfig.FromRESTConfig(cc.Config, "x", "")
	e := f.Users["x"].Exec
	if e == nil || e.Command != "aws" || e.APIVersion != "client.authentication.k8s.io/v1beta1" || e.InteractiveMode != "IfAvailable" || len(e.Env) != 1 {
		t.Fatalf("exec section %+v", e)
	}
	cc, err = kubeconfig.Load(kubeconfig.Options{Path: "testdata/kubectl.yaml", Overrides: kubeconfig.Overrides{Context: "prod-as-ops"}})
	if err != nil {
		t.Fatal(err)
	}
	u := kubeconfig.FromRESTConfig(cc.Config, "x", "").Users["x"]
	if u.TokenFile != abs(t, "testdata/tokens/ops") || u.Token != "" {
		t.Fatalf("tokenFile %q token set %v; want the file only", u.TokenFile, u.Token != "")
	}
}
