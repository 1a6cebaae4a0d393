package informer_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// The package's index (what `go doc -short` lists) is its user API:
// declaring, reading and watching a type's cache. The engine behind it
// stays unexported, so the index stays short enough to read at a glance.
func TestIndexListsAtMostFiftyEntries(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	files := []*ast.File{}
	for _, f := range pkgs["informer"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/kubego/kubego/informer")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, v := range append(p.Consts, p.Vars...) {
		entries = append(entries, strings.Join(v.Names, ","))
	}
	for _, f := range p.Funcs {
		entries = append(entries, f.Name)
	}
	for _, ty := range p.Types {
		entries = append(entries, ty.Name)
		for _, v := range append(ty.Consts, ty.Vars...) {
			entries = append(entries, strings.Join(v.Names, ","))
		}
		for _, f := range ty.Funcs {
			entries = append(entries, f.Name)
		}
	}
	if len(entries) > 50 {
		t.Errorf("the package index lists %d entries, more than 50: %v", len(entries), entries)
	}
}
