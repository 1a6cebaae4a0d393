package testenv_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubego/kubego/testenv"
)

// Options.CRDPaths: Start returns with the definitions served.
func TestStartInstallsCRDPaths(t *testing.T) {
	dir := t.TempDir()
	def := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"sprockets.testenv.example.com"},
"spec":{"group":"testenv.example.com","scope":"Namespaced",
"names":{"kind":"Sprocket","listKind":"SprocketList","plural":"sprockets","singular":"sprocket"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	if err := os.WriteFile(filepath.Join(dir, "sprocket.json"), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := testenv.StartForTest(t, testenv.Options{CRDPaths: []string{dir}})
	if code, body := get(t, cp.Config(), "/apis/testenv.example.com/v1/sprockets"); code != http.StatusOK {
		t.Fatalf("sprockets right after Start: %d %s", code, body)
	}
}
