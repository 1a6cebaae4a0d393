package testenv

//go:generate cp ../hack/controlplane/go.mod pins/go.mod.txt
//go:generate cp ../hack/controlplane/go.sum pins/go.sum.txt
//go:generate cp ../hack/controlplane/tools.go pins/tools.go.txt
//go:generate sh -c "for v in 1.34 1.35 1.36; do cp ../hack/controlplane/v$v/go.mod pins/v$v/go.mod.txt; cp ../hack/controlplane/v$v/go.sum pins/v$v/go.sum.txt; cp ../hack/controlplane/v$v/tools.go pins/v$v/tools.go.txt; done"

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"slices"
)

//go:embed pins
var pinFiles embed.FS

// Package paths of the two programs, as the tools modules name them.
const (
	apiServerPkg = "k8s.io/kubernetes/cmd/kube-apiserver"
	etcdPkg      = "go.etcd.io/etcd/server/v3"
)

// DefaultVersion is the kube-apiserver minor version testenv runs unless
// asked for another: the one the library's API types come from.
const DefaultVersion = "1.37"

// EnvVersion names an environment variable choosing the kube-apiserver
// minor version ("1.34") of control planes whose Options.Version is empty.
const EnvVersion = "KUBEGO_APISERVER_VERSION"

// versionDirs maps each minor version testenv can build to its pins. The
// default version's tools module also builds etcd, which every version
// uses.
var versionDirs = map[string]string{
	"1.34":         "pins/v1.34",
	"1.35":         "pins/v1.35",
	"1.36":         "pins/v1.36",
	DefaultVersion: "pins",
}

// Versions lists the kube-apiserver minor versions testenv can build,
// oldest first.
func Versions() []string {
	vs := make([]string, 0, len(versionDirs))
	for v := range versionDirs {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, compareVersions)
	return vs
}

// compareVersions orders "1.34" before "1.37".
func compareVersions(a, b string) int {
	var am, an, bm, bn int
	_, _ = fmt.Sscanf(a, "%d.%d", &am, &an)
	_, _ = fmt.Sscanf(b, "%d.%d", &bm, &bn)
	if am != bm {
		return am - bm
	}
	return an - bn
}

// UnknownVersionError is returned for a version testenv has no pins for.
type UnknownVersionError struct{ Version string }

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("testenv: no kube-apiserver %q to build (known: %v)", e.Version, Versions())
}

// resolveVersion returns v, or the environment's choice, or DefaultVersion,
// checked against the known versions.
func resolveVersion(v string) (string, error) {
	if v == "" {
		v = os.Getenv(EnvVersion)
	}
	if v == "" {
		v = DefaultVersion
	}
	if _, ok := versionDirs[v]; !ok {
		return "", &UnknownVersionError{Version: v}
	}
	return v, nil
}

// pins are the three files of one tools module.
type pins struct {
	goMod, goSum, tools []byte
}

func pinsFor(version string) (pins, error) {
	dir, ok := versionDirs[version]
	if !ok {
		return pins{}, &UnknownVersionError{Version: version}
	}
	var p pins
	var err error
	read := func(name string) []byte {
		b, e := pinFiles.ReadFile(path.Join(dir, name))
		if e != nil && err == nil {
			err = fmt.Errorf("testenv: embedded pins: %w", e)
		}
		return b
	}
	p.goMod, p.goSum, p.tools = read("go.mod.txt"), read("go.sum.txt"), read("tools.go.txt")
	return p, err
}

// hash names a build of a tools module: it changes whenever its module
// graph changes.
func (p pins) hash() string {
	h := sha256.New()
	h.Write(p.goMod)
	h.Write([]byte{0})
	h.Write(p.goSum)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
