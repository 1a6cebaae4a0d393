package client_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// writes calls every write verb of a ConfigMap client once, each with the
// field manager given (empty for none).
func writes(fm string) map[string]func(context.Context, *client.Resource[*corev1.ConfigMap]) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	return map[string]func(context.Context, *client.Resource[*corev1.ConfigMap]) error{
		"Create": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			_, err := r.Create(ctx, cm, metav1.CreateOptions{FieldManager: fm})
			return err
		},
		"Update": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			_, err := r.Update(ctx, cm, metav1.UpdateOptions{FieldManager: fm})
			return err
		},
		"UpdateStatus": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			_, err := r.UpdateStatus(ctx, cm, metav1.UpdateOptions{FieldManager: fm})
			return err
		},
		"Patch": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			_, err := r.Patch(ctx, "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{FieldManager: fm})
			return err
		},
		"Apply": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			_, err := r.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "x"}}, client.ApplyOptions{FieldManager: fm})
			return err
		},
		"UpdateSubresource": func(ctx context.Context, r *client.Resource[*corev1.ConfigMap]) error {
			return r.UpdateSubresource(ctx, "x", "status", cm, nil, metav1.UpdateOptions{FieldManager: fm})
		},
	}
}

func TestFieldManagerOfWrites(t *testing.T) {
	tests := []struct {
		name    string
		options string // client.Options.FieldManager
		call    string // the call's own field manager
		want    map[string]string
	}{
		{"the client's field manager names every write", "op", "",
			map[string]string{"Create": "op", "Update": "op", "UpdateStatus": "op", "Patch": "op", "Apply": "op", "UpdateSubresource": "op"}},
		{"the call's field manager wins", "op", "mine",
			map[string]string{"Create": "mine", "Update": "mine", "UpdateStatus": "mine", "Patch": "mine", "Apply": "mine", "UpdateSubresource": "mine"}},
		{"without one only apply names the program, as the server would", "", "",
			map[string]string{"Create": "", "Update": "", "UpdateStatus": "", "Patch": "", "Apply": "client.test", "UpdateSubresource": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for verb, call := range writes(tt.call) {
				f, c := newFake(t, client.Options{FieldManager: tt.options})
				if err := call(t.Context(), client.Typed[*corev1.ConfigMap](c).Namespace("ns")); err != nil {
					t.Fatalf("%s: %v", verb, err)
				}
				reqs := f.requests()
				q, err := url.ParseQuery(reqs[len(reqs)-1].Query)
				if err != nil {
					t.Fatal(err)
				}
				if got := q.Get("fieldManager"); got != tt.want[verb] {
					t.Errorf("%s sent fieldManager=%q, want %q", verb, got, tt.want[verb])
				}
			}
		})
	}
}

func TestApplyManagerFollowsACustomUserAgent(t *testing.T) {
	f := &fakeServer{}
	rc, err := rest.NewClient(&rest.Config{Host: newHTTPServer(t, f), UserAgent: "shipper/2.1 (linux/amd64)"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	if _, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Apply(t.Context(), map[string]any{"metadata": map[string]any{"name": "x"}}, client.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if q, _ := url.ParseQuery(f.requests()[0].Query); q.Get("fieldManager") != "shipper" {
		t.Errorf("apply sent fieldManager=%q, want shipper (the User-Agent's program)", q.Get("fieldManager"))
	}
}

func TestNewForConfig(t *testing.T) {
	if _, err := client.NewForConfig(&rest.Config{}, client.Options{}); !errors.As(err, new(*rest.ConfigError)) {
		t.Errorf("empty Config: error %v, want a *rest.ConfigError", err)
	}
	f := &fakeServer{}
	c, err := client.NewForConfig(&rest.Config{Host: newHTTPServer(t, f)}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Get(t.Context(), "x", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].Path; got != "/api/v1/namespaces/ns/configmaps/x" {
		t.Errorf("request path %q", got)
	}
}

// Gizmo is a CRD Go type no registry, table or scheme knows.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (g *Gizmo) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

func TestKindOf(t *testing.T) {
	_, c := newFake(t, client.Options{Registry: widgetRegistry()})
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.org/v2")
	u.SetKind("Gadget")
	tests := []struct {
		name    string
		obj     informer.Object
		want    schema.GroupVersionKind
		unknown bool
	}{
		{"a built-in kind comes from the table", &appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithKind("Deployment"), false},
		{"a registered type comes from the registry", &Widget{}, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, false},
		{"an object's own type meta wins", u, schema.GroupVersionKind{Group: "example.org", Version: "v2", Kind: "Gadget"}, false},
		{"unstructured without a kind is unknown", &unstructured.Unstructured{}, schema.GroupVersionKind{}, true},
		{"an unregistered type is unknown", &Gizmo{}, schema.GroupVersionKind{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.KindOf(tt.obj)
			if tt.unknown {
				if !errors.Is(err, client.ErrUnknownType) {
					t.Fatalf("KindOf = %v, %v; want ErrUnknownType", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("KindOf = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
