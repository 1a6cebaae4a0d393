package crd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Resource is the resource of CustomResourceDefinitions.
var Resource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Kind is the kind of CustomResourceDefinitions.
var Kind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// Parse decodes the CustomResourceDefinitions in data, YAML or JSON, in
// order: YAML may hold several documents separated by "---"; empty
// documents are skipped. A document of another kind is an error wrapping
// ErrNotCRD, as is malformed YAML or JSON.
func Parse(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 0; ; i++ {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("crd: document %d: %w: %v", i, ErrNotCRD, err)
		}
		if len(doc) == 0 {
			continue
		}
		u, err := check(doc)
		if err != nil {
			return nil, fmt.Errorf("crd: document %d: %w", i, err)
		}
		out = append(out, u)
	}
}

// ReadFiles reads the CustomResourceDefinitions of each path with Parse: a
// file, or a directory whose *.yaml, *.yml and *.json files are read in
// name order (subdirectories are not). Errors name the file.
func ReadFiles(paths ...string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, p := range paths {
		files, err := filesOf(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("crd: %w", err)
			}
			defs, err := Parse(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			out = append(out, defs...)
		}
	}
	return out, nil
}

// filesOf returns p, or the definition files of directory p.
func filesOf(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("crd: %w", err)
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("crd: %w", err)
	}
	var out []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// FromValue converts a CustomResourceDefinition given as a Go value: an
// *unstructured.Unstructured or map[string]any (copied), or any value
// encoding/json turns into one, such as the apiextensions-apiserver
// v1.CustomResourceDefinition type (with TypeMeta set, or left empty). It
// returns an error wrapping ErrNotCRD for anything else.
func FromValue(v any) (*unstructured.Unstructured, error) {
	if u, ok := v.(*unstructured.Unstructured); ok && u != nil {
		v = u.Object
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("crd: %w: encoding %T: %v", ErrNotCRD, v, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("crd: %w: %T is not an object", ErrNotCRD, v)
	}
	u := unstructured.Unstructured{Object: doc}
	if u.GetKind() == "" && u.GetAPIVersion() == "" {
		u.SetGroupVersionKind(Kind)
	}
	return check(doc)
}

// check wraps doc, which must be a named v1 CustomResourceDefinition.
func check(doc map[string]any) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: doc}
	if gvk := u.GroupVersionKind(); gvk != Kind {
		return nil, fmt.Errorf("%w: got apiVersion %q, kind %q", ErrNotCRD, u.GetAPIVersion(), u.GetKind())
	}
	if u.GetName() == "" {
		return nil, fmt.Errorf("%w: no metadata.name", ErrNotCRD)
	}
	return u, nil
}
