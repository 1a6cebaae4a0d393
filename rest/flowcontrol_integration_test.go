package rest_test

import (
	"context"
	"testing"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// kube-apiserver names the FlowSchema and priority level of a request in
// its response, and a Result says which.
func TestFlowControlAgainstAPIServer(t *testing.T) {
	cp := testenv.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	res := c.Get().AbsPath("/api/v1/namespaces").Do(context.Background())
	if err := res.Error(); err != nil {
		t.Fatal(err)
	}
	fc := res.FlowControl()
	if fc.FlowSchemaUID == "" || fc.PriorityLevelUID == "" {
		t.Fatalf("FlowControl() = %+v, want both UIDs", fc)
	}
	t.Logf("flow schema %s, priority level %s", fc.FlowSchemaUID, fc.PriorityLevelUID)
}
