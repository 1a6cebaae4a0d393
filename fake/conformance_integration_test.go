package fake_test

import (
	"testing"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/testenv/kubeletstub"
)

// TestMain shares one control plane per test binary, trusting the
// stand-in kubelet that serves the pod logs of the suite.
func TestMain(m *testing.M) { kubeletstub.Main(m) }

// TestConformanceReal runs the conformance suite against a real
// kube-apiserver, so every behaviour the fake claims is checked against the
// server it imitates.
func TestConformanceReal(t *testing.T) {
	cp := testenv.Shared(t)
	runConformance(t, target{
		name:   "real",
		config: func(*testing.T) *rest.Config { return cp.Config() },
		logs: func(t *testing.T, _ *rest.Config) logHost {
			_, k := kubeletstub.Shared(t)
			return logHost{node: k.NodeName(), setLog: k.SetLog, appendLog: k.AppendLog}
		},
	})
}
