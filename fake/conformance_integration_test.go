package fake_test

import (
	"testing"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestConformanceReal runs the conformance suite against a real
// kube-apiserver, so every behaviour the fake claims is checked against the
// server it imitates.
func TestConformanceReal(t *testing.T) {
	cp := testenv.Shared(t)
	runConformance(t, target{
		name:   "real",
		config: func(*testing.T) *rest.Config { return cp.Config() },
	})
}
