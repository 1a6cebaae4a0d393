//go:build tools

// Package controlplane records the binary testenv builds from this module.
package controlplane

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
