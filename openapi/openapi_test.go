package openapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/kubegotest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/openapi"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// servers returns a REST client of fake and, unless -short, of
// testenv's kube-apiserver.
func servers(t *testing.T) map[string]*rest.Client {
	srv := fake.NewServer(fake.Options{})
	t.Cleanup(srv.Close)
	fc, err := rest.NewClient(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*rest.Client{"fake": fc}
	if !testing.Short() {
		rc, err := rest.NewClient(testenv.Shared(t).Config())
		if err != nil {
			t.Fatal(err)
		}
		out["kube-apiserver"] = rc
	}
	return out
}

func TestExplainWalksFieldsAsKubectlExplainDoes(t *testing.T) {
	deployment := appsv1.SchemeGroupVersion.WithKind("Deployment")
	for server, rc := range servers(t) {
		t.Run(server, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			c := openapi.New(rc, openapi.Options{})
			tests := []struct {
				name      string
				gvk       schema.GroupVersionKind
				path      string
				wantType  string
				wantField string // a field the result lists
				required  bool
			}{
				{"the kind itself", deployment, "", "Deployment", "spec", false},
				{"an object field by reference", deployment, "spec", "DeploymentSpec", "replicas", true},
				{"a list of objects", deployment, "spec.template.spec.containers", "[]Container", "image", true},
				{"a field inside list items", deployment, "spec.template.spec.containers.name", "string", "", true},
				{"a map", deployment, "metadata.labels", "map[string]string", "", false},
				{"an int-or-string", deployment, "spec.strategy.rollingUpdate.maxSurge", "IntOrString", "", false},
				{"a core kind", corev1.SchemeGroupVersion.WithKind("ConfigMap"), "data", "map[string]string", "", false},
				{"a required object field", deployment, "spec.selector", "LabelSelector", "matchLabels", true},
			}
			for _, tt := range tests {
				f, err := c.Explain(ctx, tt.gvk, tt.path)
				if err != nil {
					t.Errorf("%s: Explain(%s, %q): %v", tt.name, tt.gvk.Kind, tt.path, err)
					continue
				}
				if f.Type != tt.wantType || f.Required != tt.required || f.Description == "" {
					t.Errorf("%s: type %q required %v description %q; want %q, %v and a description", tt.name, f.Type, f.Required, f.Description, tt.wantType, tt.required)
				}
				if tt.wantField != "" && !hasField(f, tt.wantField) {
					t.Errorf("%s: fields %v lack %q", tt.name, names(f), tt.wantField)
				}
			}
			_, err := c.Explain(ctx, deployment, "spec.template.spec.containerz.image")
			if !errors.Is(err, openapi.ErrNoSchema) || !strings.Contains(err.Error(), `"containerz"`) {
				t.Errorf("a misspelt path: %v, want ErrNoSchema naming the field", err)
			}
			_, err = c.Explain(ctx, schema.GroupVersionKind{Group: "nope.example.com", Version: "v1", Kind: "Nope"}, "")
			if !errors.Is(err, openapi.ErrNotServed) {
				t.Errorf("an unknown group: %v, want ErrNotServed", err)
			}
			_, err = c.Explain(ctx, appsv1.SchemeGroupVersion.WithKind("Nope"), "")
			if !errors.Is(err, openapi.ErrNoSchema) {
				t.Errorf("an unknown kind: %v, want ErrNoSchema", err)
			}
		})
	}
}

func hasField(f *openapi.Field, name string) bool {
	for _, c := range f.Fields {
		if c.Name == name {
			return true
		}
	}
	return false
}

func names(f *openapi.Field) []string {
	var out []string
	for _, c := range f.Fields {
		out = append(out, c.Name)
	}
	return out
}

// Gauge is a custom resource explained once its CRD is installed.
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GaugeSpec `json:"spec"`
}

// GaugeSpec is what a Gauge measures.
type GaugeSpec struct {
	// Size is how big the gauge is.
	Size int32 `json:"size"`
}

func TestExplainACustomResource(t *testing.T) {
	for server, rc := range servers(t) {
		t.Run(server, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			group := fmt.Sprintf("g%d.openapi.kubego.test", time.Now().UnixNano())
			def, err := crd.Build(crd.Definition{Group: group, Kind: "Gauge", Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[Gauge]()}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := crd.Install(ctx, dynamic.New(rc, dynamic.Options{}), []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
				t.Fatal(err)
			}
			c := openapi.New(rc, openapi.Options{})
			gvk := schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gauge"}
			// The server publishes a new CRD's document a moment after it
			// is served.
			var f *openapi.Field
			kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
				f, err = c.Explain(ctx, gvk, "spec.size")
				return err
			})
			if f.Type != "integer" || !f.Required {
				t.Errorf("spec.size: %+v", f)
			}
		})
	}
}
