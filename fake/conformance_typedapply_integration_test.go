package fake_test

import (
	"testing"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// TestConformanceTypedApplyReal runs the typed apply cases against a real
// kube-apiserver.
func TestConformanceTypedApplyReal(t *testing.T) {
	cp := testenv.Shared(t)
	runCases(t, target{name: "real", config: func(*testing.T) *rest.Config { return cp.Config() }}, typedApplyCases())
}
