package kubeconfig_test

import (
	"fmt"

	"github.com/kubego/kubego/kubeconfig"
)

// Load finds the configuration like kubectl: an explicit path, then
// $KUBECONFIG, then in-cluster, then ~/.kube/config.
func ExampleLoad() {
	cc, err := kubeconfig.Load(kubeconfig.Options{
		Path:      "testdata/kind.yaml", // usually empty: the --kubeconfig flag
		Overrides: kubeconfig.Overrides{Namespace: "demo"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cc.Context, cc.Config.Host, cc.Namespace)
	// Then: client, err := rest.NewClient(cc.Config)
	// Output: kind-kind https://127.0.0.1:41235 demo
}
