package layering

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kubego/kubego"

// layers ranks each top-level directory of the module. A package may import
// kubego packages of a strictly lower rank only (internal/ helpers are rank
// 0 and importable by all; a directory's own subpackages share its rank and
// may import each other). Keep in step with ARCHITECTURE.md.
var layers = map[string]int{
	"internal":       0,
	"clock":          0,
	"backoff":        0,
	"scheme":         1,
	"workqueue":      1,
	"apischema":      1, // structural schemas from Go types (internal/typeschema) with CEL rules compiled and costed
	"webhook":        1, // webhook server, admission, conversion; imports no client
	"certs":          1, // CAs, serving and client certificates
	"apply":          2, // typed server-side apply configurations and Extract; builds schemas with internal/typeschema, no CEL
	"rest":           2,
	"informer":       2, // defines its ListerWatcher; never imports rest
	"auth":           3,
	"podexec":        3, // exec and attach over the WebSocket channel protocol
	"portforward":    3, // port-forward over WebSocket: Dial, listeners
	"proxy":          3, // the proxy subresource of pods and services
	"rbac":           3, // RBAC rules derived, requests recorded, rules checked against them
	"kubeconfig":     4,
	"openapi":        4, // OpenAPI v3 documents: schemas of kinds, kubectl-explain lookups
	"discovery":      4,
	"client":         5,
	"dynamic":        5,
	"metadata":       5,
	"leaderelection": 6,
	"record":         6,
	"fake":           6,
	"crd":            6, // installs CustomResourceDefinitions through dynamic
	"objects":        6, // owner references, finalizers, create-or-update, merge patches
	"kubegotest":     6, // test helpers: polling, test logger, events of an object
	"authfilter":     6, // TokenReview + SubjectAccessReview in front of an HTTP handler
	"fleet":          6, // a cluster (client + informer factory + lifecycle) and providers of clusters
	"webhookconfig":  6, // webhook configurations from handlers, serving certificates from a CA Secret, caBundle upkeep
	"testenv":        7, // installs CRDs with package crd; kubeletstub: a stand-in kubelet
	"install":        7, // an operator's installation: manifests, install, uninstall
	"controller":     7,
	"manager":        8, // hosts controllers: probes, metrics, signals, leader election
	"sharding":       8, // one controller across replicas: member Leases, hash ring, shard labels, drains
	"cmd":            9,
	"examples":       9,
	"faults":         9, // test-only fault-injection suite
}

// codecLayers ranks the packages of internal/codec the same way: a package
// there may import only packages of a strictly lower rank among them, and
// no other package of the module. Keep in step with ARCHITECTURE.md.
var codecLayers = map[string]int{
	"wire":     0,
	"layout":   0,
	"protodec": 1,
	"dedup":    1,
	"":         2, // internal/codec itself
}

const codecRoot = module + "/internal/codec"

// codecPart returns the subpackage of internal/codec path names ("" for
// internal/codec itself), or ok false for a path outside it.
func codecPart(path string) (part string, ok bool) {
	if path == codecRoot {
		return "", true
	}
	part, ok = strings.CutPrefix(path, codecRoot+"/")
	return part, ok
}

// codecViolations returns one message per import of an internal/codec
// package that does not point to a lower rank inside internal/codec, and
// per unranked package there.
func codecViolations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from, ok := codecPart(p.ImportPath)
		if !ok {
			continue
		}
		fromRank, ok := codecLayers[from]
		if !ok {
			out = append(out, p.ImportPath+": has no rank; add it to codecLayers and ARCHITECTURE.md")
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to, ok := codecPart(imp)
			if toRank, ranked := codecLayers[to]; !ok || !ranked || toRank >= fromRank {
				out = append(out, p.ImportPath+" imports "+imp+": internal/codec packages import only lower ones among them")
			}
		}
	}
	return out
}

// forbidden are modules no library package may depend on, even indirectly.
var forbidden = []string{"k8s.io/client-go", "sigs.k8s.io/controller-runtime"}

// linkedByControllers are the directories whose packages every controller
// links; unlinked are the packages none of them may depend on, even
// indirectly: the CEL compiler and its dependencies cost a controller
// megabytes of memory at start (package inits, code pages) for rules only
// a definition's build (apischema) and the fake server compile.
var (
	linkedByControllers = []string{"client", "apply", "controller", "manager", "informer", "rest", "record", "leaderelection", "workqueue"}
	unlinked            = []string{module + "/internal/celeval", "github.com/google/cel-go"}
)

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// top returns the top-level directory of a kubego import path, or "" for a
// path outside the module.
func top(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return first
}

// layerViolations returns one message per import that does not point to a
// lower layer, and per package in an unranked directory.
func layerViolations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := top(p.ImportPath)
		fromRank, ok := layers[from]
		if !ok {
			out = append(out, p.ImportPath+": top-level directory "+from+" has no layer; add it to layers and ARCHITECTURE.md")
			continue
		}
		for _, imp := range p.Imports {
			to := top(imp)
			if to == "" || to == from || to == "internal" {
				continue
			}
			if toRank, ok := layers[to]; ok && toRank >= fromRank {
				out = append(out, p.ImportPath+" imports "+imp+": imports must point to a lower layer")
			}
		}
	}
	return out
}

// forbiddenDeps returns one message per dependency on a forbidden module.
func forbiddenDeps(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		out = append(out, depsUnder(p, forbidden)...)
	}
	return out
}

// controllerDeps returns one message per dependency of a package a
// controller links on a package it must not link.
func controllerDeps(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		if slices.Contains(linkedByControllers, top(p.ImportPath)) {
			out = append(out, depsUnder(p, unlinked)...)
		}
	}
	return out
}

// depsUnder returns one message per dependency of p that is one of roots
// or a package under one.
func depsUnder(p pkg, roots []string) []string {
	var out []string
	for _, d := range p.Deps {
		for _, r := range roots {
			if d == r || strings.HasPrefix(d, r+"/") {
				out = append(out, p.ImportPath+" depends on "+d)
			}
		}
	}
	return out
}

func TestImportsPointDownward(t *testing.T) {
	for _, v := range layerViolations(listPackages(t)) {
		t.Error(v)
	}
}

func TestCodecImportsPointDownward(t *testing.T) {
	for _, v := range codecViolations(listPackages(t)) {
		t.Error(v)
	}
}

func TestNoLibraryPackageDependsOnClientGo(t *testing.T) {
	for _, v := range forbiddenDeps(listPackages(t)) {
		t.Error(v)
	}
}

func TestControllersLinkNoCEL(t *testing.T) {
	for _, v := range controllerDeps(listPackages(t)) {
		t.Error(v)
	}
}

func TestCheckersCatchViolations(t *testing.T) {
	m := module + "/"
	tests := []struct {
		name  string
		pkgs  []pkg
		check func([]pkg) []string
		want  int
	}{
		{"downward import is fine", []pkg{{ImportPath: m + "client", Imports: []string{m + "rest", "fmt"}}}, layerViolations, 0},
		{"upward import is caught", []pkg{{ImportPath: m + "rest", Imports: []string{m + "client"}}}, layerViolations, 1},
		{"same-layer sibling is caught", []pkg{{ImportPath: m + "informer", Imports: []string{m + "rest"}}}, layerViolations, 1},
		{"own subpackage is fine", []pkg{{ImportPath: m + "informer", Imports: []string{m + "informer/internal/x"}}}, layerViolations, 0},
		{"unranked directory is caught", []pkg{{ImportPath: m + "newthing"}}, layerViolations, 1},
		{"codec importing its parts is fine", []pkg{{ImportPath: m + "internal/codec", Imports: []string{m + "internal/codec/dedup", m + "internal/codec/wire"}}}, codecViolations, 0},
		{"a codec part importing upward is caught", []pkg{{ImportPath: m + "internal/codec/wire", Imports: []string{m + "internal/codec/dedup"}}}, codecViolations, 1},
		{"codec siblings of one rank are caught", []pkg{{ImportPath: m + "internal/codec/dedup", Imports: []string{m + "internal/codec/protodec"}}}, codecViolations, 1},
		{"a codec part importing the rest of the module is caught", []pkg{{ImportPath: m + "internal/codec/protodec", Imports: []string{m + "scheme"}}}, codecViolations, 1},
		{"an unranked codec part is caught", []pkg{{ImportPath: m + "internal/codec/newthing"}}, codecViolations, 1},
		{"client-go dependency is caught", []pkg{{ImportPath: m + "rest", Deps: []string{"k8s.io/client-go/rest"}}}, forbiddenDeps, 1},
		{"controller-runtime dependency is caught", []pkg{{ImportPath: m + "controller", Deps: []string{"sigs.k8s.io/controller-runtime"}}}, forbiddenDeps, 1},
		{"similar prefix is not client-go", []pkg{{ImportPath: m + "rest", Deps: []string{"k8s.io/client-gopher"}}}, forbiddenDeps, 0},
		{"a controller package linking cel-go is caught", []pkg{{ImportPath: m + "apply", Deps: []string{"github.com/google/cel-go/cel"}}}, controllerDeps, 1},
		{"a controller subpackage linking celeval is caught", []pkg{{ImportPath: m + "client/clientset", Deps: []string{m + "internal/celeval"}}}, controllerDeps, 1},
		{"apischema may link CEL", []pkg{{ImportPath: m + "apischema", Deps: []string{m + "internal/celeval", "github.com/google/cel-go/cel"}}}, controllerDeps, 0},
		{"a controller package linking the core schema is fine", []pkg{{ImportPath: m + "apply", Deps: []string{m + "internal/typeschema"}}}, controllerDeps, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.check(tt.pkgs); len(got) != tt.want {
				t.Fatalf("got %d violations %v, want %d", len(got), got, tt.want)
			}
		})
	}
}
