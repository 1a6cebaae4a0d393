package informer

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoUpwardImports keeps the informer independent of the transport and
// of client-go (ARCHITECTURE.md, layers): it must unit test without HTTP.
func TestNoUpwardImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	forbidden := []string{
		"github.com/kubego/kubego/rest", "github.com/kubego/kubego/client", "github.com/kubego/kubego/dynamic",
		"github.com/kubego/kubego/metadata", "github.com/kubego/kubego/discovery", "github.com/kubego/kubego/controller",
		"k8s.io/client-go", "sigs.k8s.io/controller-runtime",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("informer depends on %s", dep)
			}
		}
	}
}
