//go:build !foo_only

package main

import (
	"os"

	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/manager"
)

func init() {
	workloads["labeler"] = workload{setup: func(mgr *manager.Manager, f ctlbench.Flags) (*controller.Controller, error) {
		return labeler.Setup(mgr, labeler.Options{Namespace: f.Namespace, Decoded: os.Getenv("KUBEGO_DECODED") == "1"})
	}}
}
