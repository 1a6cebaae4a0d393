//go:build tools

// Package controlplane records the binaries testenv builds from this module.
package controlplane

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
