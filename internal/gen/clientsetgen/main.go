// Command clientsetgen writes the registration-derived code of the client
// packages, from the k8s.io/api module this module requires:
//
//   - client/zz_generated_builtin.go: the table mapping every built-in kind to
//     its resource name and scope;
//   - client/clientset/zz_generated_clientset.go: the Clientset facade, one
//     method per group/version and one per resource, each returning a generic
//     client.Resource[T].
//
// Which types are resources, and their scope, is read from the same markers
// the upstream client generator reads in k8s.io/api (+genclient,
// +genclient:nonNamespaced, +genclient:noVerbs); the group name from each
// package's GroupName constant; the resource name from the kind by the
// pluralisation rule in plural.go. A unit test checks the table against
// scheme.Default() and an integration test against a real server's discovery.
//
// Run it through `go generate ./client/...`; it takes the module root as its
// only argument (default "../..", relative to internal/gen/clientsetgen... or
// as set by the go:generate line).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// kind is one resource-backed type found in k8s.io/api.
type kind struct {
	Kind       string
	Resource   string // plural, lower case
	Method     string // Clientset method name (plural, Go case)
	Namespaced bool
}

// groupVersion is one k8s.io/api/<group>/<version> package.
type groupVersion struct {
	Path    string // import path
	Alias   string // import alias, e.g. appsv1
	Group   string // API group, "" for core
	Version string
	Method  string // Clientset method, e.g. AppsV1
	Kinds   []kind
}

func main() {
	root := flag.String("root", "../..", "module root directory")
	flag.Parse()

	gvs, err := load()
	if err != nil {
		log.Fatal(err)
	}
	if err := write(filepath.Join(*root, "client", "zz_generated_builtin.go"), builtinTable(gvs)); err != nil {
		log.Fatal(err)
	}
	if err := write(filepath.Join(*root, "client", "clientset", "zz_generated_clientset.go"), clientset(gvs)); err != nil {
		log.Fatal(err)
	}
}

func write(path string, src []byte) error {
	out, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("format %s: %v\n%s", path, err, src)
	}
	return os.WriteFile(path, out, 0o644)
}

// load lists the group/version packages of k8s.io/api and parses their
// markers.
func load() ([]groupVersion, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "k8s.io/api/...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list k8s.io/api/...: %v", err)
	}
	var gvs []groupVersion
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(path, "k8s.io/api/")
		parts := strings.Split(rel, "/")
		if len(parts) != 2 || !strings.HasPrefix(parts[1], "v") {
			continue
		}
		if parts[0] == "imagepolicy" { // not served by kube-apiserver (as in scheme)
			continue
		}
		gv, err := parsePackage(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if len(gv.Kinds) == 0 {
			continue
		}
		gv.Path = path
		gv.Alias = parts[0] + parts[1]
		gv.Version = parts[1]
		gv.Method = groupMethod(parts[0], parts[1])
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].Path < gvs[j].Path })
	return gvs, nil
}

// groupMethod names the Clientset accessor of a group/version package, in
// the upstream clientset's spelling.
func groupMethod(pkg, version string) string {
	name := pkg
	if name == "apiserverinternal" {
		name = "internal"
	}
	return upperFirst(name) + upperFirst(version)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func parsePackage(dir string) (groupVersion, error) {
	var gv groupVersion
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		n := fi.Name()
		return strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !strings.HasPrefix(n, "zz_generated") && !strings.HasPrefix(n, "generated")
	}, parser.ParseComments)
	if err != nil {
		return gv, err
	}
	groupFound := false
	for _, p := range pkgs {
		for _, f := range p.Files {
			prevEnd := f.Name.End()
			for _, decl := range f.Decls {
				start, end := prevEnd, decl.Pos()
				prevEnd = decl.End()
				gd, ok := decl.(*ast.GenDecl)
				if !ok {
					continue
				}
				switch gd.Tok {
				case token.CONST:
					for _, spec := range gd.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if n.Name == "GroupName" && i < len(vs.Values) {
								if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
									g, err := strconv.Unquote(lit.Value)
									if err != nil {
										return gv, err
									}
									gv.Group, groupFound = g, true
								}
							}
						}
					}
				case token.TYPE:
					for _, spec := range gd.Specs {
						ts := spec.(*ast.TypeSpec)
						// Markers sit in the comment groups between the
						// previous declaration and this one, often separated
						// from the doc comment by a blank line.
						var lines []*ast.Comment
						if len(gd.Specs) == 1 {
							for _, cg := range f.Comments {
								if cg.Pos() > start && cg.End() < end {
									lines = append(lines, cg.List...)
								}
							}
						}
						if ts.Doc != nil {
							lines = append(lines, ts.Doc.List...)
						}
						if k, ok := markers(ts.Name.Name, lines); ok {
							gv.Kinds = append(gv.Kinds, k)
						}
					}
				}
			}
		}
	}
	if !groupFound && len(gv.Kinds) > 0 {
		return gv, fmt.Errorf("no GroupName constant")
	}
	sort.Slice(gv.Kinds, func(i, j int) bool { return gv.Kinds[i].Kind < gv.Kinds[j].Kind })
	return gv, nil
}

// markers reads the +genclient markers of one type's doc comment.
func markers(name string, doc []*ast.Comment) (kind, bool) {
	client, namespaced := false, true
	for _, c := range doc {
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		switch {
		case text == "+genclient":
			client = true
		case text == "+genclient:nonNamespaced":
			namespaced = false
		case text == "+genclient:noVerbs":
			return kind{}, false
		}
	}
	if !client {
		return kind{}, false
	}
	plural := pluralKind(name)
	return kind{Kind: name, Resource: strings.ToLower(plural), Method: plural, Namespaced: namespaced}, true
}

func builtinTable(gvs []groupVersion) []byte {
	var b bytes.Buffer
	b.WriteString(`// Code generated by internal/gen/clientsetgen; DO NOT EDIT.

package client

import "k8s.io/apimachinery/pkg/runtime/schema"

// builtinResources maps every built-in kind of k8s.io/api that is served as
// a resource to its resource name and scope. It is read-only.
var builtinResources = map[schema.GroupVersionKind]builtinResource{
`)
	for _, gv := range gvs {
		for _, k := range gv.Kinds {
			fmt.Fprintf(&b, "\t{Group: %q, Version: %q, Kind: %q}: {%q, %v},\n", gv.Group, gv.Version, k.Kind, k.Resource, k.Namespaced)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func clientset(gvs []groupVersion) []byte {
	var b bytes.Buffer
	b.WriteString(`// Code generated by internal/gen/clientsetgen; DO NOT EDIT.

package clientset

import (
	"github.com/kubego/kubego/client"

`)
	for _, gv := range gvs {
		fmt.Fprintf(&b, "\t%s %q\n", gv.Alias, gv.Path)
	}
	b.WriteString(")\n\n")
	for _, gv := range gvs {
		fmt.Fprintf(&b, "// %s returns the clients of the %s group/version.\n", gv.Method, groupVersionString(gv))
		fmt.Fprintf(&b, "func (cs *Clientset) %s() %s { return %s{c: cs.c} }\n\n", gv.Method, gv.Method, gv.Method)
	}
	for _, gv := range gvs {
		fmt.Fprintf(&b, "// %s holds the clients of the %s group/version (package %s).\n", gv.Method, groupVersionString(gv), gv.Path)
		fmt.Fprintf(&b, "type %s struct{ c *client.Client }\n\n", gv.Method)
		for _, k := range gv.Kinds {
			typ := fmt.Sprintf("*%s.%s", gv.Alias, k.Kind)
			if k.Namespaced {
				fmt.Fprintf(&b, "// %s returns the client of %s in namespace (\"\" for all namespaces).\n", k.Method, k.Resource)
				fmt.Fprintf(&b, "func (g %s) %s(namespace string) *client.Resource[%s] {\n\treturn client.Typed[%s](g.c).Namespace(namespace)\n}\n\n", gv.Method, k.Method, typ, typ)
			} else {
				fmt.Fprintf(&b, "// %s returns the client of the cluster-scoped %s.\n", k.Method, k.Resource)
				fmt.Fprintf(&b, "func (g %s) %s() *client.Resource[%s] {\n\treturn client.Typed[%s](g.c)\n}\n\n", gv.Method, k.Method, typ, typ)
			}
		}
	}
	return b.Bytes()
}

func groupVersionString(gv groupVersion) string {
	if gv.Group == "" {
		return "core/" + gv.Version
	}
	return gv.Group + "/" + gv.Version
}
