package fake_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// writeKubeconfig writes a kubeconfig for cfg (CA, optional client
// certificate) into dir.
func writeKubeconfig(t *testing.T, dir string, cfg *rest.Config) string {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	user := "{token: any}" // the fake accepts every request
	if len(cfg.TLS.CertData) > 0 {
		user = fmt.Sprintf("{client-certificate-data: %s, client-key-data: %s}", b64(cfg.TLS.CertData), b64(cfg.TLS.KeyData))
	}
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: u, user: %s}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, cfg.Host, b64(cfg.TLS.CAData), user)
	p := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKubectlSameOnBothServers runs kubectl's common commands against the
// fake and against a real kube-apiserver and compares output and exit
// status. It needs kubectl on PATH and KUBEGO_KUBECTL=1 (make test-kubectl;
// it is slow: each command starts kubectl and fetches discovery and
// OpenAPI).
func TestKubectlSameOnBothServers(t *testing.T) {
	if os.Getenv("KUBEGO_KUBECTL") == "" {
		t.Skip("set KUBEGO_KUBECTL=1 to compare kubectl against both servers")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	cp := testenv.Shared(t)
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	ns := fmt.Sprintf("kubectl-%d", time.Now().UnixNano()%1_000_000)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: \"two\"\n  selector: {matchLabels: {a: b}}\n  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(kubeconfig string, args ...string) string {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(filepath.Dir(kubeconfig), "cache")}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return fmt.Sprintf("exit %d\n%s", code, out.String())
	}
	realDir, fakeDir := filepath.Join(dir, "real"), filepath.Join(dir, "fake")
	for _, d := range []string{realDir, fakeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realKC, fakeKC := writeKubeconfig(t, realDir, cp.Config()), writeKubeconfig(t, fakeDir, srv.Config())
	for _, args := range [][]string{
		{"create", "namespace", ns},
		{"create", "-n", ns, "-f", manifest},
		{"get", "-n", ns, "configmap", "cm", "-o", "jsonpath={.data}"},
		{"apply", "-n", ns, "-f", manifest},
		{"apply", "--server-side", "-n", ns, "-f", manifest},
		{"apply", "-n", ns, "-f", bad},
		{"create", "-n", ns, "-f", bad, "--dry-run=server"},
		{"explain", "deployment.spec.replicas"},
		{"explain", "pods.spec.containers.resources"},
		{"api-resources", "--api-group=apps"},
		{"api-resources", "--api-group=apiregistration.k8s.io"},
		{"auth", "can-i", "create", "pods"},
		{"get", "apiservices", "v1.apps", "-o", "jsonpath={.spec}"},
		{"label", "-n", ns, "configmap", "cm", "tier=web"},
		{"get", "-n", ns, "configmaps", "-l", "tier=web", "-o", "name"},
		{"patch", "-n", ns, "configmap", "cm", "--type=merge", "-p", `{"data":{"a":"2"}}`},
		{"wait", "-n", ns, "--for=jsonpath={.data.a}=2", "configmap/cm", "--timeout=10s"},
		{"create", "-n", ns, "deployment", "d", "--image=registry.example/app:1"},
		{"scale", "-n", ns, "deployment", "d", "--replicas=3"},
		{"get", "-n", ns, "deployment", "d", "-o", "jsonpath={.spec.replicas}"},
		{"get", "-n", ns, "deployment", "d", "-o", "jsonpath={.spec.strategy} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.spec.template.spec}"},
		{"create", "-n", ns, "service", "clusterip", "s", "--tcp=80:8080"},
		{"get", "-n", ns, "service", "s", "-o", "jsonpath={.spec.type} {.spec.ports} {.spec.sessionAffinity} {.spec.ipFamilies} {.spec.ipFamilyPolicy} {.spec.internalTrafficPolicy}"},
		{"get", "all", "-n", ns, "-o", "name"},
		{"delete", "-n", ns, "configmap", "cm"},
		{"wait", "-n", ns, "--for=delete", "configmap/cm", "--timeout=5s"},
		{"delete", "namespace", ns, "--wait=false"},
	} {
		want, got := run(realKC, args...), run(fakeKC, args...)
		if args[len(args)-1] == bad || args[len(args)-2] == bad {
			// Known difference (doc.go): the same status and reason, another
			// message for a field of the wrong type.
			want, got = statusLine(want), statusLine(got)
		}
		if want != got {
			t.Errorf("kubectl %s:\nreal server:\n%s\nfake:\n%s", strings.Join(args, " "), want, got)
		}
	}
}

// statusLine keeps of kubectl's output the exit status and the "Error from
// server (Reason)" of its first error.
func statusLine(out string) string {
	exit, rest, _ := strings.Cut(out, "\n")
	reason, _, _ := strings.Cut(rest, ":")
	return exit + "\n" + reason
}
