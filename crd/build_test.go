package crd_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apischema/apischematest"
	"github.com/kubego/kubego/crd"
)

type replicated struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas int32 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int32  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status,omitzero"`
}

func ok() crd.Version { return crd.Version{Name: "v1", Type: crd.TypeOf[replicated]()} }

func TestBuildAssemblesTheDefinition(t *testing.T) {
	u, err := crd.Build(crd.Definition{
		Group: "apps.example.com", Kind: "Replicated", ShortNames: []string{"rep"}, Categories: []string{"all"}, Scope: crd.Cluster,
		Versions: []crd.Version{
			{Name: "v1beta1", Type: crd.TypeOf[replicated](), Deprecated: true, DeprecationWarning: "use v1"},
			{Name: "v1", Type: crd.TypeOf[replicated](), Storage: true, Status: true,
				Scale:          &crd.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
				PrinterColumns: []crd.PrinterColumn{{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"}, {Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		return v
	}
	if u.GetName() != "replicateds.apps.example.com" || get("spec", "scope") != "Cluster" {
		t.Errorf("name %s, scope %v", u.GetName(), get("spec", "scope"))
	}
	names := get("spec", "names").(map[string]any)
	if names["plural"] != "replicateds" || names["singular"] != "replicated" || names["listKind"] != "ReplicatedList" || fmt.Sprint(names["shortNames"]) != "[rep]" {
		t.Errorf("names %v", names)
	}
	vs := get("spec", "versions").([]any)
	v0, v1 := vs[0].(map[string]any), vs[1].(map[string]any)
	if v0["deprecated"] != true || v0["deprecationWarning"] != "use v1" || v0["storage"] != false || v0["served"] != true || v0["subresources"] != nil {
		t.Errorf("v1beta1 %v", v0)
	}
	sub := v1["subresources"].(map[string]any)
	if v1["storage"] != true || sub["status"] == nil || sub["scale"].(map[string]any)["labelSelectorPath"] != ".status.selector" || len(v1["additionalPrinterColumns"].([]any)) != 2 {
		t.Errorf("v1 %v", v1)
	}
	conv, err := crd.Build(crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{ok()},
		Conversion: &crd.Conversion{Service: &crd.ServiceReference{Namespace: "ns", Name: "conv", Path: "/convert"}, CABundle: []byte("pem")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(conv.Object["spec"].(map[string]any)["conversion"]); got != "map[strategy:Webhook webhook:map[clientConfig:map[caBundle:cGVt service:map[name:conv namespace:ns path:/convert]] conversionReviewVersions:[v1]]]" {
		t.Errorf("conversion %s", got)
	}
	// The result is a valid unstructured object: it deep-copies.
	_ = u.DeepCopy()
}

func TestBuildRefusesAnInvalidDefinition(t *testing.T) {
	ok := crd.Version{Name: "v1", Type: crd.TypeOf[replicated]()}
	for _, tc := range []struct {
		name string
		d    crd.Definition
	}{
		{"no group", crd.Definition{Kind: "R", Versions: []crd.Version{ok}}},
		{"group without a dot", crd.Definition{Group: "example", Kind: "R", Versions: []crd.Version{ok}}},
		{"no kind", crd.Definition{Group: "a.b", Versions: []crd.Version{ok}}},
		{"no versions", crd.Definition{Group: "a.b", Kind: "R"}},
		{"bad scope", crd.Definition{Group: "a.b", Kind: "R", Scope: "Global", Versions: []crd.Version{ok}}},
		{"bad short name", crd.Definition{Group: "a.b", Kind: "R", ShortNames: []string{"R_1"}, Versions: []crd.Version{ok}}},
		{"two versions, no storage", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{ok, {Name: "v2", Type: ok.Type}}}},
		{"repeated version", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: ok.Type, Storage: true}, ok}}},
		{"no type", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1"}}}},
		{"printer column typo", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: ok.Type, PrinterColumns: []crd.PrinterColumn{{Name: "R", Type: "integer", JSONPath: ".spec.replcas"}}}}}},
		{"printer column type", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: ok.Type, PrinterColumns: []crd.PrinterColumn{{Name: "R", Type: "int", JSONPath: ".spec.replicas"}}}}}},
		{"scale path typo", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: ok.Type, Scale: &crd.Scale{SpecReplicasPath: ".spec.replica", StatusReplicasPath: ".status.replicas"}}}}},
		{"conversion without a URL or Service", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{ok}, Conversion: &crd.Conversion{}}},
		{"conversion over http", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{ok}, Conversion: &crd.Conversion{URL: "http://x/convert"}}},
		{"warning without deprecation", crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: ok.Type, DeprecationWarning: "x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := crd.Build(tc.d); !errors.Is(err, crd.ErrInvalidDefinition) {
				t.Fatalf("got %v, want ErrInvalidDefinition", err)
			}
		})
	}
	type noMeta struct{ A string }
	_, err := crd.Build(crd.Definition{Group: "a.b", Kind: "R", Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[noMeta]()}}})
	if !errors.Is(err, apischema.ErrUnsupported) {
		t.Fatalf("a type without metadata: %v", err)
	}
}

// benchTypes returns n distinct custom resource types: Sample's spec and a
// different built-in type each (a PodSpec every few).
func benchTypes(n int) []reflect.Type {
	builtins := []reflect.Type{
		reflect.TypeFor[corev1.PodSpec](), reflect.TypeFor[corev1.ResourceRequirements](), reflect.TypeFor[metav1.Condition](),
		reflect.TypeFor[batchv1.JobTemplateSpec](), reflect.TypeFor[appsv1.DeploymentStrategy](), reflect.TypeFor[corev1.ServicePort](),
		reflect.TypeFor[metav1.LabelSelector](), reflect.TypeFor[corev1.Toleration](), reflect.TypeFor[corev1.EnvVar](), reflect.TypeFor[corev1.Volume](),
	}
	var out []reflect.Type
	for i := range n {
		out = append(out, reflect.StructOf([]reflect.StructField{
			{Name: "TypeMeta", Type: reflect.TypeFor[metav1.TypeMeta](), Anonymous: true, Tag: `json:",inline"`},
			{Name: "Metadata", Type: reflect.TypeFor[metav1.ObjectMeta](), Tag: `json:"metadata,omitempty"`},
			{Name: "Spec", Type: reflect.TypeFor[apischematest.SampleSpec](), Tag: `json:"spec"`},
			{Name: fmt.Sprintf("Extra%d", i), Type: builtins[i%len(builtins)], Tag: reflect.StructTag(fmt.Sprintf(`json:"extra%d,omitzero"`, i))},
		}))
	}
	return out
}

// BenchmarkBuild50 builds the definitions of 50 types (schemas included),
// once the captured documents are decoded.
func BenchmarkBuild50(b *testing.B) {
	types := benchTypes(50)
	build := func(measure bool) int {
		size := 0
		for i, ty := range types {
			u, err := crd.Build(crd.Definition{Group: "bench.example.com", Kind: fmt.Sprintf("Kind%d", i), Versions: []crd.Version{{Name: "v1", Type: ty}}})
			if err != nil {
				b.Fatal(err)
			}
			if measure {
				data, _ := u.MarshalJSON()
				size += len(data)
			}
		}
		return size
	}
	size := build(true)
	b.ResetTimer()
	for b.Loop() {
		build(false)
	}
	b.ReportMetric(float64(size)/50, "bytes/definition")
}
