package testenv

//go:generate cp ../hack/controlplane/go.mod pins/go.mod.txt
//go:generate cp ../hack/controlplane/go.sum pins/go.sum.txt
//go:generate cp ../hack/controlplane/tools.go pins/tools.go.txt

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
)

var (
	//go:embed pins/go.mod.txt
	pinnedGoMod []byte
	//go:embed pins/go.sum.txt
	pinnedGoSum []byte
	//go:embed pins/tools.go.txt
	pinnedTools []byte
)

// Package paths of the two programs, as the tools module names them.
const (
	apiServerPkg = "k8s.io/kubernetes/cmd/kube-apiserver"
	etcdPkg      = "go.etcd.io/etcd/server/v3"
)

// pinHash names a build of the binaries: it changes whenever the pinned
// module graph changes.
func pinHash() string {
	h := sha256.New()
	h.Write(pinnedGoMod)
	h.Write([]byte{0})
	h.Write(pinnedGoSum)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
