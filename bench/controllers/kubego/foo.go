//go:build !labeler_only

package main

import (
	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/manager"
)

func init() {
	workloads["foo"] = workload{
		configure: func(opts *manager.Options) {
			reg := client.NewRegistry()
			foos.Register(reg)
			opts.Client = client.Options{Registry: reg}
		},
		setup: func(mgr *manager.Manager, _ ctlbench.Flags) (*controller.Controller, error) { return foos.Setup(mgr) },
	}
}
