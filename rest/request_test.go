package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/internal/codec/wire"

	"github.com/kubego/kubego/scheme"
)

func TestRequestURLBuildsKubernetesPaths(t *testing.T) {
	c, err := NewClient(&Config{Host: "https://example.test:6443/prefix/"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		build func() *Request
		want  string
	}{
		{"core list cluster-wide", func() *Request { return c.Get().Resource("pods") }, "/prefix/api/v1/pods"},
		{"core namespaced get", func() *Request { return c.Get().Namespace("ns").Resource("pods").Name("p") }, "/prefix/api/v1/namespaces/ns/pods/p"},
		{"core explicit v1", func() *Request { return c.Get().Group("").Version("v1").Resource("nodes").Name("n") }, "/prefix/api/v1/nodes/n"},
		{"group resource", func() *Request { return c.Get().Group("apps").Version("v1").Namespace("x").Resource("deployments") }, "/prefix/apis/apps/v1/namespaces/x/deployments"},
		{"subresource", func() *Request {
			return c.Put().Group("apps").Version("v1").Namespace("x").Resource("deployments").Name("d").SubResource("status")
		}, "/prefix/apis/apps/v1/namespaces/x/deployments/d/status"},
		{"nested subresource", func() *Request {
			return c.Get().Namespace("x").Resource("pods").Name("p").SubResource("proxy", "metrics")
		}, "/prefix/api/v1/namespaces/x/pods/p/proxy/metrics"},
		{"abs path wins", func() *Request { return c.Get().Group("apps").Version("v1").Resource("x").AbsPath("/version") }, "/prefix/version"},
		{"abs path segments", func() *Request { return c.Get().AbsPath("/apis", "apps", "v1") }, "/prefix/apis/apps/v1"},
		{"group discovery", func() *Request { return c.Get().Group("apps").Version("v1") }, "/prefix/apis/apps/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := tt.build().URL()
			if err != nil {
				t.Fatal(err)
			}
			if u.Path != tt.want {
				t.Errorf("path = %q, want %q", u.Path, tt.want)
			}
		})
	}
}

func TestRequestBuildErrorsComeBackFromDo(t *testing.T) {
	calls := 0
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { calls++ })
	c, _ := newTestClient(t, srv, nil)
	tests := []struct {
		name  string
		build func() *Request
	}{
		{"empty name", func() *Request { return c.Get().Resource("pods").Name("") }},
		{"slash in name", func() *Request { return c.Get().Resource("pods").Name("a/b") }},
		{"dot-dot name", func() *Request { return c.Get().Resource("pods").Name("..") }},
		{"percent in namespace", func() *Request { return c.Get().Namespace("a%2f").Resource("pods") }},
		{"bad resource", func() *Request { return c.Get().Resource("a/b") }},
		{"empty subresource", func() *Request { return c.Get().Resource("pods").Name("p").SubResource("") }},
		{"group without version", func() *Request { return c.Get().Group("apps").Resource("deployments") }},
		{"name without resource", func() *Request { return c.Get().Name("x") }},
		{"unencodable params", func() *Request { return c.Get().Resource("pods").Params(&unregistered{}) }},
		{"unmarshalable body", func() *Request { return c.Post().Resource("pods").Body(func() {}) }},
		{"negative timeout", func() *Request { return c.Get().Resource("pods").Timeout(-time.Second) }},
		{"bad content type", func() *Request { return c.Get().Resource("pods").ContentType(ContentType(42)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if err := tt.build().Do(ctx).Error(); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("Do error = %v, want ErrInvalidRequest", err)
			}
			if _, err := tt.build().Stream(ctx); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("Stream error = %v, want ErrInvalidRequest", err)
			}
			if _, err := tt.build().Watch(ctx, nil); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("Watch error = %v, want ErrInvalidRequest", err)
			}
		})
	}
	if calls != 0 {
		t.Errorf("server saw %d requests, want 0", calls)
	}
}

// captured is what the test server saw of one request.
type captured struct {
	method, path string
	query        map[string][]string
	header       http.Header
	body         []byte
}

// captureServer serves respBody and records the request; its client
// decodes through the scheme of every built-in kind.
func captureServer(t *testing.T, status int, ct string, respBody []byte) (*Client, *captured) {
	t.Helper()
	return captureServerWith(t, status, ct, respBody, func(cfg *Config) { cfg.Scheme = scheme.Default() })
}

// captureServerWith is captureServer with the client's Config changed by
// mod (nil: as NewClient's defaults have it).
func captureServerWith(t *testing.T, status int, ct string, respBody []byte, mod func(*Config)) (*Client, *captured) {
	t.Helper()
	got := &captured{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path, got.query, got.header = r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone()
		got.body, _ = io.ReadAll(r.Body)
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing
		}
		w.WriteHeader(status)
		_, _ = w.Write(respBody)
	})
	c, _ := newTestClient(t, srv, mod)
	return c, got
}

func TestRequestSendsParamsFromOptionStructs(t *testing.T) {
	c, got := captureServer(t, 200, "application/json", []byte(`{}`))
	limit := int64(5)
	_, _ = c.Get().Namespace("ns").Resource("pods").
		Params(&metav1.ListOptions{LabelSelector: "app=x", Limit: limit, ResourceVersion: "10", AllowWatchBookmarks: true}).
		Param("extra", "1").Param("extra", "2").
		DoRaw(context.Background())
	want := map[string]string{"labelSelector": "app=x", "limit": "5", "resourceVersion": "10", "allowWatchBookmarks": "true"}
	for k, v := range want {
		if g := got.query[k]; len(g) != 1 || g[0] != v {
			t.Errorf("query %s = %q, want %q", k, g, v)
		}
	}
	if g := got.query["extra"]; len(g) != 2 {
		t.Errorf("repeated param = %q", g)
	}
	_, _ = c.Delete().Namespace("ns").Resource("pods").Name("p").
		Params(&metav1.DeleteOptions{DryRun: []string{"All"}}).Body(&metav1.DeleteOptions{GracePeriodSeconds: new(int64)}).ContentType(ContentTypeJSON).
		DoRaw(context.Background())
	if g := got.query["dryRun"]; len(g) != 1 || g[0] != "All" {
		t.Errorf("dryRun = %q", g)
	}
	if !strings.Contains(string(got.body), `"gracePeriodSeconds":0`) {
		t.Errorf("delete body = %s", got.body)
	}
	_, _ = c.Get().Namespace("ns").Resource("pods").Name("p").SubResource("log").
		Params(&corev1.PodLogOptions{Container: "c", Follow: true}).DoRaw(context.Background())
	if g := got.query["container"]; len(g) != 1 || g[0] != "c" {
		t.Errorf("PodLogOptions container = %q", g)
	}
}

func TestRequestNegotiatesContentType(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Data: map[string]string{"k": "v"}}
	tests := []struct {
		name        string
		build       func(c *Client) *Request
		wantAccept  string
		wantBodyCT  string
		wantBodyPfx string
	}{
		{"built-in get asks protobuf then JSON", func(c *Client) *Request { return c.Get().Resource("configmaps") }, acceptProtobuf, "", ""},
		{"built-in create sends protobuf", func(c *Client) *Request { return c.Post().Namespace("n").Resource("configmaps").Body(cm) },
			acceptProtobuf, mediaProtobuf, wire.Magic},
		{"unknown group uses JSON", func(c *Client) *Request { return c.Get().Group("example.com").Version("v1").Resource("widgets") }, acceptJSON, "", ""},
		{"abs path uses JSON", func(c *Client) *Request { return c.Get().AbsPath("/version") }, acceptJSON, "", ""},
		{"per-request JSON override", func(c *Client) *Request {
			return c.Post().Namespace("n").Resource("configmaps").Body(cm).ContentType(ContentTypeJSON)
		}, acceptJSON, mediaJSON, `{"kind":"ConfigMap","apiVersion":"v1"`},
		{"raw accept override", func(c *Client) *Request {
			return c.Get().Resource("pods").Accept("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
		}, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", "", ""},
		{"unstructured body goes as JSON", func(c *Client) *Request {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "u"}}}
			return c.Post().Namespace("n").Resource("configmaps").Body(u)
		}, acceptProtobuf, mediaJSON, `{"apiVersion":"v1"`},
		{"patch uses the patch type", func(c *Client) *Request {
			return c.Patch(types.MergePatchType).Namespace("n").Resource("configmaps").Name("x").Body([]byte(`{"data":{}}`))
		}, acceptProtobuf, string(types.MergePatchType), `{"data":{}}`},
		{"apply patch of an object is JSON", func(c *Client) *Request {
			return c.Patch(types.ApplyPatchType).Namespace("n").Resource("configmaps").Name("x").Body(cm)
		}, acceptProtobuf, string(types.ApplyPatchType), `{"kind":"ConfigMap"`},
		{"plain value body is JSON", func(c *Client) *Request {
			return c.Post().AbsPath("/x").Body(map[string]int{"a": 1})
		}, acceptJSON, mediaJSON, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, got := captureServer(t, 200, "application/json", []byte(`{}`))
			_, _ = tt.build(c).DoRaw(context.Background())
			if a := got.header.Get("Accept"); a != tt.wantAccept {
				t.Errorf("Accept = %q, want %q", a, tt.wantAccept)
			}
			if ct := got.header.Get("Content-Type"); ct != tt.wantBodyCT {
				t.Errorf("Content-Type = %q, want %q", ct, tt.wantBodyCT)
			}
			if !strings.HasPrefix(string(got.body), tt.wantBodyPfx) {
				t.Errorf("body = %q, want prefix %q", got.body, tt.wantBodyPfx)
			}
		})
	}
	if cm.Kind != "" || cm.APIVersion != "" {
		t.Errorf("caller's object was modified: %v", cm.TypeMeta)
	}
}

func TestRequestSetsHeadersAndIdentity(t *testing.T) {
	var got http.Header
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	c, _ := newTestClient(t, srv, func(cfg *Config) {
		cfg.BearerToken = "tok-123"
		cfg.AllowInsecureAuth = true
		cfg.UserAgent = "my-agent/1"
		cfg.Impersonate = Impersonation{UserName: "jane", UID: "42", Groups: []string{"a", "b"}, Extra: map[string][]string{"scopes/x": {"s1"}}}
	})
	_, _ = c.Get().AbsPath("/version").SetHeader("X-Test", "1", "2").DoRaw(context.Background())
	checks := map[string]string{
		"Authorization":                "Bearer tok-123",
		"User-Agent":                   "my-agent/1",
		"Impersonate-User":             "jane",
		"Impersonate-Uid":              "42",
		"Impersonate-Extra-Scopes%2Fx": "s1",
		"Accept-Encoding":              "gzip",
	}
	for k, v := range checks {
		if g := got.Get(k); g != v {
			t.Errorf("%s = %q, want %q", k, g, v)
		}
	}
	if g := got.Values("Impersonate-Group"); len(g) != 2 {
		t.Errorf("Impersonate-Group = %q", g)
	}
	if g := got.Values("X-Test"); len(g) != 2 {
		t.Errorf("X-Test = %q", g)
	}
}

func TestRequestTimeoutIsSentAndEnforced(t *testing.T) {
	c, got := captureServer(t, 200, "application/json", []byte(`{}`))
	_, _ = c.Get().Resource("pods").Timeout(5 * time.Second).DoRaw(context.Background())
	if g := got.query["timeout"]; len(g) != 1 || g[0] != "5s" {
		t.Errorf("timeout param = %q", g)
	}
}

// unregistered is a runtime.Object no scheme knows.
type unregistered struct {
	metav1.TypeMeta `json:",inline"`
	Field           string `json:"field"`
}

func (u *unregistered) DeepCopyObject() runtime.Object { c := *u; return &c }

func TestNilObjectsAreHandledWithoutPanics(t *testing.T) {
	c, got := captureServer(t, 200, mediaJSON, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`))
	var nilCM *corev1.ConfigMap
	var nilOpts *metav1.ListOptions
	res := c.Post().Namespace("n").Resource("configmaps").Params(nilOpts).Body(nilCM).Do(context.Background())
	if err := res.Error(); err != nil {
		t.Fatal(err)
	}
	if len(got.body) != 0 {
		t.Errorf("body = %q, want none", got.body)
	}
	if err := res.Into(nilCM); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("Into(nil) = %v", err)
	}
}

func TestConfigTimeoutBoundsDoButNotWatch(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			w.Header().Set("Content-Type", mediaJSON)
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	})
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.Timeout = 100 * time.Millisecond })
	err := c.Get().Resource("pods").Do(context.Background()).Error()
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do err = %v, want a deadline TransportError", err)
	}
	w, err := c.Get().Resource("pods").Watch(context.Background(), nil)
	if err != nil {
		t.Fatalf("watch outlived by Config.Timeout: %v", err)
	}
	defer w.Stop()
	select {
	case <-w.ResultChan():
		t.Errorf("watch ended: %v", w.Err())
	case <-time.After(300 * time.Millisecond):
	}
}

func TestDeleteOptionsAreSentAsJSONWithoutTypeMeta(t *testing.T) {
	var body []byte
	var ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		ctype = r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	}))
	defer srv.Close()
	c, err := NewClient(&Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	orphan := metav1.DeletePropagationOrphan
	opts := metav1.DeleteOptions{
		TypeMeta:          metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"},
		PropagationPolicy: &orphan,
		Preconditions:     &metav1.Preconditions{ResourceVersion: ptrTo("7")},
	}
	if err := c.Delete().Namespace("ns").Resource("pods").Name("p").DeleteOptions(opts).Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if want := `{"preconditions":{"resourceVersion":"7"},"propagationPolicy":"Orphan"}`; string(body) != want {
		t.Errorf("body %s, want %s", body, want)
	}
	if !strings.HasPrefix(ctype, "application/json") {
		t.Errorf("Content-Type %q, want JSON", ctype)
	}
	if opts.Kind != "DeleteOptions" {
		t.Error("the caller's options were modified")
	}
}

func ptrTo[T any](v T) *T { return &v }
