package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/scheme"
)

func TestBuiltinTableAgreesWithScheme(t *testing.T) {
	s := scheme.Default()
	n := 0
	client.BuiltinKinds(func(m client.Mapping) bool {
		n++
		if !s.Recognizes(m.Kind) {
			t.Errorf("%v is in the table but not in scheme.Default()", m.Kind)
		}
		if !strings.HasSuffix(m.Kind.Kind, "Review") && !s.Recognizes(m.Kind.GroupVersion().WithKind(m.Kind.Kind+"List")) {
			t.Errorf("%v has no list kind in the scheme", m.Kind)
		}
		if m.Resource.Resource != strings.ToLower(m.Resource.Resource) {
			t.Errorf("%v: resource %q is not lower case", m.Kind, m.Resource.Resource)
		}
		return true
	})
	if n < 150 {
		t.Fatalf("table has %d kinds, want all built-in resources (≥150)", n)
	}
	for _, tc := range []struct {
		kind       string
		gvr        string
		namespaced bool
	}{
		{"Pod", "pods", true},
		{"Node", "nodes", false},
		{"Endpoints", "endpoints", true},
		{"NetworkPolicy", "networkpolicies", true},
		{"Ingress", "ingresses", true},
	} {
		gvk := corev1.SchemeGroupVersion.WithKind(tc.kind)
		if tc.kind == "NetworkPolicy" || tc.kind == "Ingress" {
			gvk.Group = "networking.k8s.io"
		}
		m, ok := client.Builtin(gvk)
		if !ok || m.Resource.Resource != tc.gvr || m.Namespaced != tc.namespaced {
			t.Errorf("Builtin(%v) = %+v, %v; want %s namespaced=%v", gvk, m, ok, tc.gvr, tc.namespaced)
		}
	}
}

func TestRequestShapes(t *testing.T) {
	ctx := context.Background()
	one := int64(1)
	bg := metav1.DeletePropagationBackground
	uid := types.UID("u-1")
	replicas := int32(2)
	tests := []struct {
		name  string
		call  func(c *client.Client) error
		want  seen
		check func(t *testing.T, s seen)
	}{
		{
			name: "get a namespaced object",
			call: func(c *client.Client) error {
				_, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Get(ctx, "x", metav1.GetOptions{ResourceVersion: "5"})
				return err
			},
			want: seen{Method: "GET", Path: "/api/v1/namespaces/ns/configmaps/x", Query: "resourceVersion=5"},
		},
		{
			name: "list with selectors, limit and resource version semantics",
			call: func(c *client.Client) error {
				_, err := client.Typed[*appsv1.Deployment](c).Namespace("ns").List(ctx, metav1.ListOptions{
					LabelSelector: "app=web", FieldSelector: "metadata.name=a", Limit: 10, Continue: "tok",
					ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
				})
				return err
			},
			want: seen{Method: "GET", Path: "/apis/apps/v1/namespaces/ns/deployments",
				Query: "continue=tok&fieldSelector=metadata.name%3Da&labelSelector=app%3Dweb&limit=10&resourceVersion=7&resourceVersionMatch=NotOlderThan"},
		},
		{
			name: "create a cluster-scoped object",
			call: func(c *client.Client) error {
				_, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{FieldManager: "m"})
				return err
			},
			want: seen{Method: "POST", Path: "/api/v1/namespaces", Query: "fieldManager=m"},
		},
		{
			name: "create takes the object's namespace when the client has none",
			call: func(c *client.Client) error {
				_, err := client.Typed[*corev1.ConfigMap](c).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "objns"}}, metav1.CreateOptions{})
				return err
			},
			want: seen{Method: "POST", Path: "/api/v1/namespaces/objns/configmaps"},
		},
		{
			name: "update status goes to the status subresource",
			call: func(c *client.Client) error {
				_, err := client.Typed[*appsv1.Deployment](c).Namespace("ns").UpdateStatus(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, metav1.UpdateOptions{})
				return err
			},
			want: seen{Method: "PUT", Path: "/apis/apps/v1/namespaces/ns/deployments/d/status"},
		},
		{
			name: "delete sends preconditions, propagation and grace period",
			call: func(c *client.Client) error {
				return client.Typed[*corev1.ConfigMap](c).Namespace("ns").Delete(ctx, "x", metav1.DeleteOptions{
					GracePeriodSeconds: &one, PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &uid},
				})
			},
			want: seen{Method: "DELETE", Path: "/api/v1/namespaces/ns/configmaps/x"},
			check: func(t *testing.T, s seen) {
				var o metav1.DeleteOptions
				if err := json.Unmarshal([]byte(s.Body), &o); err != nil {
					t.Fatal(err)
				}
				if *o.GracePeriodSeconds != 1 || *o.PropagationPolicy != bg || *o.Preconditions.UID != uid {
					t.Errorf("delete body %s", s.Body)
				}
			},
		},
		{
			name: "delete collection with a selector",
			call: func(c *client.Client) error {
				return client.Typed[*corev1.ConfigMap](c).Namespace("ns").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "a=b"})
			},
			want: seen{Method: "DELETE", Path: "/api/v1/namespaces/ns/configmaps", Query: "labelSelector=a%3Db"},
		},
		{
			name: "scale subresource",
			call: func(c *client.Client) error {
				_, err := client.Typed[*appsv1.Deployment](c).Namespace("ns").UpdateScale(ctx, "d", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{})
				return err
			},
			want: seen{Method: "PUT", Path: "/apis/apps/v1/namespaces/ns/deployments/d/scale"},
		},
		{
			name: "pod eviction",
			call: func(c *client.Client) error {
				return client.Evict(ctx, client.Typed[*corev1.Pod](c).Namespace("ns"), "p", metav1.DeleteOptions{})
			},
			want: seen{Method: "POST", Path: "/api/v1/namespaces/ns/pods/p/eviction"},
		},
		{
			name: "pod log stream",
			call: func(c *client.Client) error {
				rc, err := client.Logs(ctx, client.Typed[*corev1.Pod](c).Namespace("ns"), "p", corev1.PodLogOptions{Container: "c", TailLines: &one})
				if err != nil {
					return err
				}
				_, _ = io.ReadAll(rc)
				return rc.Close()
			},
			want: seen{Method: "GET", Path: "/api/v1/namespaces/ns/pods/p/log", Query: "container=c&tailLines=1"},
		},
		{
			name: "merge patch",
			call: func(c *client.Client) error {
				_, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Patch(ctx, "x", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{})
				return err
			},
			want: seen{Method: "PATCH", Path: "/api/v1/namespaces/ns/configmaps/x", ContentType: "application/merge-patch+json", Body: `{"data":{"a":"b"}}`},
		},
		{
			name: "server-side apply with field manager and force",
			call: func(c *client.Client) error {
				_, err := client.Typed[*appsv1.Deployment](c).Namespace("ns").Apply(ctx, &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{Replicas: &replicas},
				}, client.ApplyOptions{FieldManager: "me", Force: true})
				return err
			},
			want: seen{Method: "PATCH", Path: "/apis/apps/v1/namespaces/ns/deployments/d", Query: "fieldManager=me&force=true", ContentType: "application/apply-patch+yaml"},
			check: func(t *testing.T, s seen) {
				var m map[string]any
				if err := json.Unmarshal([]byte(s.Body), &m); err != nil {
					t.Fatal(err)
				}
				if m["apiVersion"] != "apps/v1" || m["kind"] != "Deployment" {
					t.Errorf("apply body lacks apiVersion/kind: %s", s.Body)
				}
				if _, ok := m["status"]; ok {
					t.Errorf("apply body carries an empty status: %s", s.Body)
				}
				if strings.Contains(s.Body, "creationTimestamp") || strings.Contains(s.Body, "null") {
					t.Errorf("apply body carries zero values: %s", s.Body)
				}
			},
		},
		{
			name: "custom resource create sends JSON with apiVersion and kind",
			call: func(c *client.Client) error {
				_, err := client.Typed[*Widget](c).Namespace("ns").Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: WidgetSpec{Size: 3}}, metav1.CreateOptions{})
				return err
			},
			want: seen{Method: "POST", Path: "/apis/example.com/v1/namespaces/ns/widgets", ContentType: "application/json", Accept: "application/json"},
			check: func(t *testing.T, s seen) {
				if !strings.Contains(s.Body, `"apiVersion":"example.com/v1"`) || !strings.Contains(s.Body, `"kind":"Widget"`) {
					t.Errorf("body %s", s.Body)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := newFake(t, client.Options{Registry: widgetRegistry()})
			f.respond = func(w http.ResponseWriter, r *http.Request, body []byte) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/log"):
					w.Header().Set("Content-Type", "text/plain")
					_, _ = io.WriteString(w, "line\n")
				case strings.HasSuffix(r.URL.Path, "/scale"):
					writeJSON(w, 200, map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "d"}})
				case strings.HasSuffix(r.URL.Path, "/eviction"):
					writeJSON(w, 201, map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Success"})
				case r.Method == "GET" && !strings.Contains(r.URL.Path, "/configmaps/"):
					writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}, "items": []any{}})
				case strings.Contains(r.URL.Path, "widgets"):
					writeJSON(w, 201, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}})
				default:
					writeJSON(w, 200, objectFor(r.URL.Path))
				}
			}
			// Lists need a kind the client expects.
			if strings.HasPrefix(tt.name, "list") {
				f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
					writeJSON(w, 200, map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList", "metadata": map[string]any{}, "items": []any{}})
				}
			}
			if err := tt.call(c); err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1: %+v", len(reqs), reqs)
			}
			got := reqs[0]
			if got.Method != tt.want.Method || got.Path != tt.want.Path {
				t.Errorf("request %s %s, want %s %s", got.Method, got.Path, tt.want.Method, tt.want.Path)
			}
			if tt.want.Query != "" {
				gq, _ := url.ParseQuery(got.Query)
				wq, _ := url.ParseQuery(tt.want.Query)
				for k, v := range wq {
					if gq.Get(k) != v[0] {
						t.Errorf("query %s = %q, want %q (full %s)", k, gq.Get(k), v[0], got.Query)
					}
				}
			}
			if tt.want.ContentType != "" && !strings.HasPrefix(got.ContentType, tt.want.ContentType) {
				t.Errorf("Content-Type %q, want %q", got.ContentType, tt.want.ContentType)
			}
			if tt.want.Accept != "" && !strings.HasPrefix(got.Accept, tt.want.Accept) {
				t.Errorf("Accept %q, want %q", got.Accept, tt.want.Accept)
			}
			if tt.want.Body != "" && got.Body != tt.want.Body {
				t.Errorf("body %s, want %s", got.Body, tt.want.Body)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func TestRefusedBeforeSending(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(c *client.Client) error
		want error
	}{
		{"strategic merge patch on a custom resource", func(c *client.Client) error {
			_, err := client.Typed[*Widget](c).Namespace("ns").Patch(ctx, "w", types.StrategicMergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}, client.ErrPatchType},
		{"namespace on a cluster-scoped resource", func(c *client.Client) error {
			_, err := client.Typed[*corev1.Node](c).Namespace("ns").Get(ctx, "n", metav1.GetOptions{})
			return err
		}, client.ErrScope},
		{"namespaced get without a namespace", func(c *client.Client) error {
			_, err := client.Typed[*corev1.Pod](c).Get(ctx, "p", metav1.GetOptions{})
			return err
		}, client.ErrScope},
		{"unregistered custom type", func(c *client.Client) error {
			_, err := client.Typed[*Widget](client.New(c.REST(), client.Options{})).Namespace("ns").Get(ctx, "w", metav1.GetOptions{})
			return err
		}, client.ErrUnknownType},
		{"apply without a name", func(c *client.Client) error {
			_, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Apply(ctx, map[string]any{"data": map[string]any{}}, client.ApplyOptions{})
			return err
		}, client.ErrInvalidArgument},
		{"update without a name", func(c *client.Client) error {
			_, err := client.Typed[*corev1.ConfigMap](c).Namespace("ns").Update(ctx, &corev1.ConfigMap{}, metav1.UpdateOptions{})
			return err
		}, client.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := newFake(t, client.Options{Registry: widgetRegistry()})
			err := tt.call(c)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if n := len(f.requests()); n != 0 {
				t.Fatalf("%d requests sent, want none", n)
			}
		})
	}
}

func TestListDecodesItemsOfEachForm(t *testing.T) {
	f, c := newFake(t, client.Options{Registry: widgetRegistry()})
	f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if strings.Contains(r.URL.Path, "widgets") {
			writeJSON(w, 200, map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "9", "continue": "c"},
				"items": []any{map[string]any{"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"size": 1}}, map[string]any{"metadata": map[string]any{"name": "b"}}}})
			return
		}
		writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{"resourceVersion": "8"},
			"items": []any{map[string]any{"metadata": map[string]any{"name": "p1"}}, map[string]any{"metadata": map[string]any{"name": "p2"}}}})
	}
	ctx := context.Background()
	pods, err := client.Typed[*corev1.Pod](c).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 || pods.Items[1].Name != "p2" || pods.ResourceVersion != "8" {
		t.Fatalf("pods %+v", pods)
	}
	ws, err := client.Typed[*Widget](c).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Items) != 2 || ws.Items[0].Spec.Size != 1 || ws.Continue != "c" || ws.ResourceVersion != "9" {
		t.Fatalf("widgets %+v", ws)
	}
}

// objectFor returns a minimal object of the kind served at path.
func objectFor(path string) map[string]any {
	kinds := map[string][2]string{
		"namespaces":  {"v1", "Namespace"},
		"deployments": {"apps/v1", "Deployment"},
		"pods":        {"v1", "Pod"},
		"configmaps":  {"v1", "ConfigMap"},
	}
	segs := strings.Split(path, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if k, ok := kinds[segs[i]]; ok {
			return map[string]any{"apiVersion": k[0], "kind": k[1], "metadata": map[string]any{"name": "x"}}
		}
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}
}
