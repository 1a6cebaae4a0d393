package dynamic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rest"
)

type seen struct{ method, path, query, ct, accept, body string }

func newFake(t *testing.T) (*dynamic.Client, func() []seen) {
	return newFakeWith(t, dynamic.Options{}, "")
}

func newFakeWith(t *testing.T, opts dynamic.Options, agent string) (*dynamic.Client, func() []seen) {
	var mu sync.Mutex
	var reqs []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(body)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "GET" && !strings.HasSuffix(r.URL.Path, "/w") {
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "3"},
				"items": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "a"}}}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}})
	}))
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL, UserAgent: agent})
	if err != nil {
		t.Fatal(err)
	}
	return dynamic.New(rc, opts), func() []seen { mu.Lock(); defer mu.Unlock(); return append([]seen(nil), reqs...) }
}

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widget() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
}

func TestRequestShapes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		call   func(r *dynamic.Resource) error
		method string
		path   string
		query  string
		ct     string
	}{
		{"get", func(r *dynamic.Resource) error { _, err := r.Get(ctx, "w", metav1.GetOptions{}); return err }, "GET", "/apis/example.com/v1/namespaces/ns/widgets/w", "", ""},
		{"list", func(r *dynamic.Resource) error {
			l, err := r.List(ctx, metav1.ListOptions{LabelSelector: "a=b"})
			if err == nil && (len(l.Items) != 1 || l.GetResourceVersion() != "3") {
				err = errors.New("bad list")
			}
			return err
		}, "GET", "/apis/example.com/v1/namespaces/ns/widgets", "labelSelector=a%3Db", ""},
		{"create", func(r *dynamic.Resource) error { _, err := r.Create(ctx, widget(), metav1.CreateOptions{}); return err }, "POST", "/apis/example.com/v1/namespaces/ns/widgets", "", "application/json"},
		{"update status", func(r *dynamic.Resource) error {
			_, err := r.UpdateStatus(ctx, widget(), metav1.UpdateOptions{})
			return err
		}, "PUT", "/apis/example.com/v1/namespaces/ns/widgets/w/status", "", "application/json"},
		{"merge patch", func(r *dynamic.Resource) error {
			_, err := r.Patch(ctx, "w", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}, "PATCH", "/apis/example.com/v1/namespaces/ns/widgets/w", "", "application/merge-patch+json"},
		{"apply", func(r *dynamic.Resource) error {
			_, err := r.Apply(ctx, widget(), dynamic.ApplyOptions{FieldManager: "m", Force: true})
			return err
		}, "PATCH", "/apis/example.com/v1/namespaces/ns/widgets/w", "fieldManager=m&force=true", "application/apply-patch+yaml"},
		{"delete", func(r *dynamic.Resource) error { return r.Delete(ctx, "w", metav1.DeleteOptions{}) }, "DELETE", "/apis/example.com/v1/namespaces/ns/widgets/w", "", ""},
		{"delete collection", func(r *dynamic.Resource) error {
			return r.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "x"})
		}, "DELETE", "/apis/example.com/v1/namespaces/ns/widgets", "labelSelector=x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, reqs := newFake(t)
			if err := tt.call(dc.Resource(widgets).Namespace("ns")); err != nil {
				t.Fatal(err)
			}
			r := reqs()[0]
			if r.method != tt.method || r.path != tt.path || (tt.query != "" && r.query != tt.query) {
				t.Errorf("%s %s?%s, want %s %s?%s", r.method, r.path, r.query, tt.method, tt.path, tt.query)
			}
			if tt.ct != "" && !strings.HasPrefix(r.ct, tt.ct) {
				t.Errorf("Content-Type %q, want %q", r.ct, tt.ct)
			}
			if !strings.HasPrefix(r.accept, "application/json") {
				t.Errorf("Accept %q, want JSON only", r.accept)
			}
		})
	}
}

func TestRefusesObjectsWithoutName(t *testing.T) {
	dc, reqs := newFake(t)
	_, err := dc.Resource(widgets).Namespace("ns").Update(context.Background(), &unstructured.Unstructured{Object: map[string]any{}}, metav1.UpdateOptions{})
	if !errors.Is(err, dynamic.ErrInvalidArgument) || len(reqs()) != 0 {
		t.Fatalf("err %v, %d requests", err, len(reqs()))
	}
}

// Options.FieldManager names every write that names none; without it the
// server names Create, Update and Patch, and Apply (which needs a name)
// sends the User-Agent's program, as the server would derive it.
func TestFieldManagerOfWrites(t *testing.T) {
	ctx := context.Background()
	writes := map[string]func(r *dynamic.Resource, fm string) error{
		"create": func(r *dynamic.Resource, fm string) error {
			_, err := r.Create(ctx, widget(), metav1.CreateOptions{FieldManager: fm})
			return err
		},
		"update": func(r *dynamic.Resource, fm string) error {
			_, err := r.Update(ctx, widget(), metav1.UpdateOptions{FieldManager: fm})
			return err
		},
		"update status": func(r *dynamic.Resource, fm string) error {
			_, err := r.UpdateStatus(ctx, widget(), metav1.UpdateOptions{FieldManager: fm})
			return err
		},
		"merge patch": func(r *dynamic.Resource, fm string) error {
			_, err := r.Patch(ctx, "w", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{FieldManager: fm})
			return err
		},
		"apply patch": func(r *dynamic.Resource, fm string) error {
			_, err := r.Patch(ctx, "w", types.ApplyPatchType, []byte(`{}`), metav1.PatchOptions{FieldManager: fm})
			return err
		},
		"apply": func(r *dynamic.Resource, fm string) error {
			_, err := r.Apply(ctx, widget(), dynamic.ApplyOptions{FieldManager: fm})
			return err
		},
	}
	tests := []struct {
		name    string
		options string // dynamic.Options.FieldManager
		call    string // the call's own
		want    map[string]string
	}{
		{name: "client's manager on every write", options: "op", want: map[string]string{"create": "op", "update": "op", "update status": "op", "merge patch": "op", "apply patch": "op", "apply": "op"}},
		{name: "call's manager wins", options: "op", call: "mine", want: map[string]string{"create": "mine", "update": "mine", "update status": "mine", "merge patch": "mine", "apply patch": "mine", "apply": "mine"}},
		{name: "none: the server names writes, apply sends the program", want: map[string]string{"create": "", "update": "", "update status": "", "merge patch": "", "apply patch": "shipper", "apply": "shipper"}},
	}
	for _, tt := range tests {
		for verb, call := range writes {
			t.Run(tt.name+"/"+verb, func(t *testing.T) {
				dc, reqs := newFakeWith(t, dynamic.Options{FieldManager: tt.options}, "shipper/v1.2.3 (linux/amd64) kubego/v0.0.0")
				if err := call(dc.Resource(widgets).Namespace("ns"), tt.call); err != nil {
					t.Fatal(err)
				}
				q, _ := url.ParseQuery(reqs()[0].query)
				if got := q.Get("fieldManager"); got != tt.want[verb] {
					t.Errorf("%s sent fieldManager=%q, want %q", verb, got, tt.want[verb])
				}
			})
		}
	}
}
