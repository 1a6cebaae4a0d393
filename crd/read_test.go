package crd_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/crd"
)

func namesOf(defs []*unstructured.Unstructured) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.GetName())
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []string
		wantErr bool
	}{
		{"one YAML document", fooYAML, []string{"foos.samplecontroller.example.com"}, false},
		{"JSON", barJSON, []string{"bars.samplecontroller.example.com"}, false},
		{"several documents, empty ones skipped", fooYAML + "\n---\n---\n" + barJSON, []string{"foos.samplecontroller.example.com", "bars.samplecontroller.example.com"}, false},
		{"nothing", "", nil, false},
		{"another kind is refused", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", nil, true},
		{"a definition without name is refused", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n", nil, true},
		{"an old version is refused", "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n", nil, true},
		{"malformed YAML is refused", "a: [b\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := crd.Parse([]byte(tt.data))
			if tt.wantErr {
				if !errors.Is(err, crd.ErrNotCRD) {
					t.Fatalf("Parse = %v, %v; want ErrNotCRD", namesOf(defs), err)
				}
				return
			}
			if err != nil || !slices.Equal(namesOf(defs), tt.want) {
				t.Fatalf("Parse = %v, %v; want %v", namesOf(defs), err, tt.want)
			}
		})
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("b_foo.yaml", fooYAML)
	write("a_bar.json", barJSON)
	write("notes.txt", "not a definition")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("sub/c.yml", "this: is not read")

	defs, err := crd.ReadFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bars.samplecontroller.example.com", "foos.samplecontroller.example.com"}
	if got := namesOf(defs); !slices.Equal(got, want) {
		t.Fatalf("ReadFiles(dir) = %v, want %v (files in name order, others skipped)", got, want)
	}
	defs, err = crd.ReadFiles(filepath.Join(dir, "b_foo.yaml"), filepath.Join(dir, "a_bar.json"))
	if err != nil || !slices.Equal(namesOf(defs), []string{want[1], want[0]}) {
		t.Fatalf("ReadFiles(files) = %v, %v; want the files' order", namesOf(defs), err)
	}
	write("bad.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
	if _, err := crd.ReadFiles(dir); !errors.Is(err, crd.ErrNotCRD) {
		t.Fatalf("ReadFiles with a Secret = %v, want ErrNotCRD", err)
	}
	if _, err := crd.ReadFiles(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFiles of a missing path = %v, want os.ErrNotExist", err)
	}
}

func TestFromValue(t *testing.T) {
	type names struct {
		Kind   string `json:"kind"`
		Plural string `json:"plural"`
	}
	type spec struct {
		Group string `json:"group"`
		Names names  `json:"names"`
	}
	// A typed definition without TypeMeta, as Go types are often built.
	type definition struct {
		Metadata map[string]string `json:"metadata"`
		Spec     spec              `json:"spec"`
	}
	parsed, err := crd.Parse([]byte(fooYAML))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		v       any
		want    string
		wantErr bool
	}{
		{"an unstructured definition", parsed[0], "foos.samplecontroller.example.com", false},
		{"a map", parsed[0].Object, "foos.samplecontroller.example.com", false},
		{"a Go value without TypeMeta", definition{Metadata: map[string]string{"name": "gizmos.example.com"}, Spec: spec{Group: "example.com", Names: names{Kind: "Gizmo", Plural: "gizmos"}}}, "gizmos.example.com", false},
		{"another kind", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}, "", true},
		{"not an object", []string{"a"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := crd.FromValue(tt.v)
			if tt.wantErr {
				if !errors.Is(err, crd.ErrNotCRD) {
					t.Fatalf("FromValue = %v, want ErrNotCRD", err)
				}
				return
			}
			if err != nil || u.GetName() != tt.want || u.GroupVersionKind() != crd.Kind {
				t.Fatalf("FromValue = %v, %v", u, err)
			}
		})
	}
	// The value given is not shared with the result.
	u, _ := crd.FromValue(parsed[0])
	u.SetName("changed")
	if parsed[0].GetName() == "changed" {
		t.Fatal("FromValue returned the unstructured value it was given")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(fooYAML))
	f.Add([]byte(barJSON))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := crd.Parse(data)
		if err != nil {
			if !errors.Is(err, crd.ErrNotCRD) {
				t.Fatalf("Parse error %v does not wrap ErrNotCRD", err)
			}
			return
		}
		for _, d := range defs {
			if d.GroupVersionKind() != crd.Kind || d.GetName() == "" {
				t.Fatalf("Parse returned %v", d.Object)
			}
		}
	})
}
