package workqueue

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The queue sits at the bottom of the controller stack: it must not import
// other kubego packages (rest above all) except the layer-0 vocabulary
// packages clock and backoff, nor client-go.
func TestImportsNothingAboveIt(t *testing.T) {
	for _, dir := range []string{".", "promqueue"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				allowed := path == "github.com/kubego/kubego/workqueue" && dir == "promqueue" ||
					path == "github.com/kubego/kubego/clock" || path == "github.com/kubego/kubego/backoff"
				if (strings.HasPrefix(path, "github.com/kubego/kubego") && !allowed) ||
					strings.HasPrefix(path, "k8s.io/client-go") || strings.HasPrefix(path, "sigs.k8s.io/controller-runtime") {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
