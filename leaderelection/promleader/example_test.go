package promleader_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/leaderelection/promleader"
)

func ExampleNew() {
	reg := prometheus.NewRegistry() // never the global one
	m, err := promleader.New(promleader.Options{Registerer: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	// An elector calls this when its term begins (pass m in Config.Metrics).
	m.SetLeading(types.NamespacedName{Namespace: "kube-system", Name: "my-controller"}, true)

	families, _ := reg.Gather()
	for _, f := range families {
		for _, s := range f.GetMetric() {
			fmt.Println(f.GetName(), s.GetLabel()[0].GetValue(), s.GetGauge().GetValue())
		}
	}
	// Output: leader_election_master_status my-controller 1
}
