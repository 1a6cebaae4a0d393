package promqueue_test

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/workqueue"
	"github.com/kubego/kubego/workqueue/promqueue"
)

func ExampleNew() {
	reg := prometheus.NewRegistry() // never the global one
	m, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "deployments"})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := workqueue.New(workqueue.Options[string]{Metrics: m})
	defer q.ShutDown()

	q.Add("default/web")
	q.Add("default/web") // deduplicated: not counted
	k, _ := q.Get(context.Background())
	q.Done(k)

	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == "workqueue_adds_total" {
			fmt.Println(f.GetName(), f.GetMetric()[0].GetCounter().GetValue())
		}
	}
	// Output: workqueue_adds_total 1
}
