package typeschema

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"reflect"
	"strings"
)

// DocComments are the doc comments of a package's Go types and of their
// fields (see apischema.DocComments). It is read-only once made; the zero
// value describes nothing.
type DocComments struct {
	pkg    string                       // the package's name
	types  map[string]string            // type name → its comment
	fields map[string]map[string]string // type name → Go field name → its comment
}

// ReadDocComments reads the doc comments of the Go files (not _test.go)
// at the root of fsys, which hold one package. A file that does not parse
// is an error naming it.
func ReadDocComments(fsys fs.FS) (*DocComments, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("apischema: reading doc comments: %w", err)
	}
	d := &DocComments{types: map[string]string{}, fields: map[string]map[string]string{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("apischema: reading doc comments: %w", err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("apischema: reading doc comments of %s: %w", name, err)
		}
		if d.pkg != "" && d.pkg != f.Name.Name {
			return nil, fmt.Errorf("apischema: reading doc comments: %s is package %s, not %s", name, f.Name.Name, d.pkg)
		}
		d.pkg = f.Name.Name
		d.add(f)
	}
	return d, nil
}

func (d *DocComments) add(f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			if text := commentText(doc); text != "" {
				d.types[ts.Name.Name] = text
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, field := range st.Fields.List {
				text := commentText(field.Doc)
				if text == "" {
					text = commentText(field.Comment)
				}
				if text == "" {
					continue
				}
				for _, n := range field.Names {
					if d.fields[ts.Name.Name] == nil {
						d.fields[ts.Name.Name] = map[string]string{}
					}
					d.fields[ts.Name.Name][n.Name] = text
				}
			}
		}
	}
}

// commentText is a comment's text without marker lines, its lines joined
// as paragraphs are in the OpenAPI documents kube-apiserver publishes.
func commentText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(g.Text(), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "+") {
			continue
		}
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// of returns the comment of type t, or of its field named field when
// field is not empty; "" when there is none or t is of another package.
func (d *DocComments) of(t reflect.Type, field string) string {
	if d == nil || t.Name() == "" || path.Base(t.PkgPath()) != d.pkg {
		return ""
	}
	if field == "" {
		return d.types[t.Name()]
	}
	return d.fields[t.Name()][field]
}
