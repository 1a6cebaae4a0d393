package install_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kubego/kubego/install"
	"github.com/kubego/kubego/rbac"
)

func ExampleCommand() {
	op := install.Operator{
		Name: "labeler", Namespace: "labeler-system", Image: "example.com/labeler:v1",
		Permissions: []rbac.Permission{{Resource: "pods", Verbs: []string{"get", "list", "watch", "patch"}}},
	}
	// In main, before starting the Manager: `labeler manifests`,
	// `labeler install` and `labeler uninstall` are handled here.
	args := []string{"manifests"}
	handled, err := install.Command(context.Background(), args, op, os.Stdout)
	fmt.Fprintln(os.Stderr, handled, err)
}
