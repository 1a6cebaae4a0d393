package foos_test

import (
	"testing"

	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The same behaviour on a real kube-apiserver, which also checks the CRD
// (its protected group needs the api-approved annotation) and the status
// subresource as the real server enforces them.
func TestFooControllerOnARealServer(t *testing.T) {
	run(t, testenv.Shared(t).Config(), "foos-it")
}
