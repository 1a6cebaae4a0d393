package apischema_test

import (
	"os"
	"testing"
	"testing/fstest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apischema"
)

// Gadget is a thing with a size.
//
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is what the gadget should be.
	Spec GadgetSpec `json:"spec"`
}

// GadgetSpec is the wanted state of a Gadget.
type GadgetSpec struct {
	// Size is how big the gadget is,
	// in centimetres.
	// +optional
	Size  int32  `json:"size,omitempty"`
	Color string `json:"color"` // Color is the gadget's paint.
	// Declared has a description of its own, which wins.
	Declared string `json:"declared"`
	Bare     string `json:"bare"`
}

func (GadgetSpec) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"Declared": {Description: "from the declaration"}}}
}

// source is this file under a name ReadDocComments reads.
func source(t *testing.T) fstest.MapFS {
	t.Helper()
	b, err := os.ReadFile("comments_test.go")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{"gadget.go": {Data: b}}
}

func TestDocCommentsDescribeTypesAndFields(t *testing.T) {
	docs, err := apischema.ReadDocComments(source(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := apischema.ResourceFor[Gadget](apischema.Options{DocComments: docs})
	if err != nil {
		t.Fatal(err)
	}
	spec := s.Properties["spec"]
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"a type's comment, markers left out", s.Description, "Gadget is a thing with a size."},
		{"a field's comment over its type's", spec.Description, "Spec is what the gadget should be."},
		{"a comment of two lines", spec.Properties["size"].Description, "Size is how big the gadget is,\nin centimetres."},
		{"a line comment", spec.Properties["color"].Description, "Color is the gadget's paint."},
		{"a declaration wins", spec.Properties["declared"].Description, "from the declaration"},
		{"no comment", spec.Properties["bare"].Description, ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	// Without them, only declarations describe.
	s, err = apischema.ResourceFor[Gadget](apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Properties["spec"].Properties["size"].Description; d != "" {
		t.Errorf("described without doc comments: %q", d)
	}
}

func TestReadDocCommentsRefusesWhatItCannotRead(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"a file that does not parse": {"a.go": {Data: []byte("package p\nfunc {")}},
		"two packages":               {"a.go": {Data: []byte("package p\n")}, "b.go": {Data: []byte("package q\n")}},
	} {
		if _, err := apischema.ReadDocComments(fsys); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	docs, err := apischema.ReadDocComments(fstest.MapFS{"a_test.go": {Data: []byte("package p\nfunc {")}, "README": {Data: []byte("x")}})
	if err != nil || docs == nil {
		t.Errorf("test files and other files are not read: %v", err)
	}
}
