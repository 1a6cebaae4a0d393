package fake

import (
	"slices"
	"testing"

	"github.com/kubego/kubego/fake/internal/crdschema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Every built-in kind a default server serves merges by its model in the
// captured OpenAPI v3 document of its group-version; kinds of the alpha
// and beta versions AllVersions adds without a captured document fall back
// to the schema derived from the Go type, and none is deduced.
func TestBuiltinKindsMergeByTheirOpenAPIModel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allVersions bool
	}{
		{"default", false},
		{"all versions", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(Options{AllVersions: tc.allVersions})
			defer s.Close()
			var fromModel, fromGo int
			for _, res := range s.reg.byGVR {
				if !res.builtin {
					continue
				}
				_, modelled := builtinConverter(res.gvk)
				s.mu.Lock()
				tc2 := s.typeConverter(res)
				s.mu.Unlock()
				switch c := tc2.(type) {
				case *parsedConverter:
					if modelled {
						fromModel++
					} else {
						fromGo++
					}
				default:
					t.Errorf("%v: converter %T", res.gvk, c)
				}
				if !tc.allVersions && !modelled {
					t.Errorf("%v: no captured model", res.gvk)
				}
			}
			if fromModel == 0 || tc.allVersions && fromGo == 0 {
				t.Errorf("%d kinds from models, %d from Go types", fromModel, fromGo)
			}
		})
	}
}

// A custom resource served without a schema merges deduced (lists
// atomic); one of a definition with a schema merges by it (a list of type
// set by value).
func TestCustomResourceConverterFollowsTheSchema(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	thing := func(sch crdschema.Schema) *resource {
		r := &resource{schema: sch}
		r.gvk.Group, r.gvk.Version, r.gvk.Kind = "example.com", "v1", "Thing"
		r.gvr.Group, r.gvr.Version, r.gvr.Resource = "example.com", "v1", "things"
		return r
	}
	set := crdschema.Schema{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "properties": map[string]any{
			"tags": map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string"}},
		}},
	}}
	obj := func(tags ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"},
			"spec": map[string]any{"tags": tags},
		}}
	}
	for _, tc := range []struct {
		name string
		res  *resource
		want []any
	}{
		{"no schema", thing(nil), []any{"b"}},
		{"set", thing(set), []any{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := s.newTypeConverter(tc.res)
			a, err := conv.ObjectToTyped(obj("a"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := conv.ObjectToTyped(obj("b"))
			if err != nil {
				t.Fatal(err)
			}
			m, err := a.Merge(b)
			if err != nil {
				t.Fatal(err)
			}
			out, err := conv.TypedToObject(m)
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedSlice(out.(*unstructured.Unstructured).Object, "spec", "tags")
			if !slices.Equal(got, tc.want) {
				t.Errorf("merged tags %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkCapturedModels measures what building the schema of the largest
// captured document (api/v1) costs, once per process on its first write.
func BenchmarkCapturedModels(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		data, ok := capturedEntry("v3/api/v1.json")
		if !ok {
			b.Fatal("no api/v1 document")
		}
		models, err := documentModels(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := newModelSchema(models); err != nil {
			b.Fatal(err)
		}
	}
}
