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
	"strings"
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
// graph or its link flags change.
func (p pins) hash() string {
	h := sha256.New()
	h.Write(p.goMod)
	h.Write([]byte{0})
	h.Write(p.goSum)
	h.Write([]byte{0})
	h.Write([]byte(p.ldflags()))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// kubernetesVersion is the k8s.io/kubernetes version the tools module
// requires ("v1.37.2"), or "" if it names none.
func (p pins) kubernetesVersion() string {
	for line := range strings.Lines(string(p.goMod)) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == "k8s.io/kubernetes" && strings.HasPrefix(f[1], "v") {
			return f[1]
		}
	}
	return ""
}

// ldflags are the link flags of the tools module's programs: no symbol
// tables, and the version stamp Kubernetes release builds give
// kube-apiserver, so that /version and the server's own idea of its
// version are those of a release rather than "v0.0.0-master".
func (p pins) ldflags() string {
	flags := "-s -w"
	v := p.kubernetesVersion()
	major, minor, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	if !ok {
		return flags
	}
	minor, _, _ = strings.Cut(minor, ".")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags += fmt.Sprintf(" -X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean", pkg, v, pkg, major, pkg, minor, pkg)
	}
	return flags
}
