package kubeconfig_test

import (
	"errors"
	"os"
	"testing"

	"github.com/kubego/kubego/kubeconfig"
)

// FuzzLoad parses arbitrary bytes as a kubeconfig and builds a config from
// them: no panic, no hang, and every failure an *Error.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/kind.yaml", "testdata/minikube.yaml", "testdata/kubectl.yaml", "testdata/kubectl.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("a: &a [x]\nb: [*a, *a]\n"))
	f.Add([]byte(kc("    server: https://[::1]:6443\n", "    exec: {command: x, apiVersion: client.authentication.k8s.io/v1beta1}\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := kubeconfig.Parse(data, "fuzz/config")
		var ke *kubeconfig.Error
		if err != nil {
			if !errors.As(err, &ke) {
				t.Fatalf("Parse error %T is not *Error: %v", err, err)
			}
			return
		}
		_, err = file.ClientConfig(kubeconfig.Options{})
		if err != nil && !errors.As(err, &ke) {
			t.Fatalf("ClientConfig error %T is not *Error: %v", err, err)
		}
		if _, err := kubeconfig.Marshal(file); err != nil {
			t.Fatalf("Marshal: %v", err)
		}
	})
}

func BenchmarkLoadKind(b *testing.B) {
	data, err := os.ReadFile("testdata/kind.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := kubeconfig.Parse(data, "testdata/kind.yaml")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.ClientConfig(kubeconfig.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
