package install

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// WriteYAML writes objs as one YAML stream (documents separated by
// "---"), for `kubectl apply --server-side -f -`: server-side, because a
// CRD built from rich Go types can exceed the annotation a client-side
// apply keeps.
func WriteYAML(w io.Writer, objs []*unstructured.Unstructured) error {
	for i, obj := range objs {
		b, err := yaml.Marshal(obj.Object)
		if err != nil {
			return fmt.Errorf("install: %s to YAML: %w", refOf(obj), err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
