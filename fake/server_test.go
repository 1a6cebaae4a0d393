package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

func client(t *testing.T, srv *fake.Server, ct rest.ContentType) *rest.Client {
	t.Helper()
	cfg := srv.Config()
	cfg.ContentType = ct
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSeededObjectsLiveInAutoCreatedNamespaces(t *testing.T) {
	d := newDeployment("d", 2)
	d.Namespace = "apps"
	d.Status.Replicas = 2
	srv := fake.NewServer(fake.Options{}, d, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeAuto), ctxT(t)
	var got appsv1.Deployment
	if err := c.Get().Group("apps").Version("v1").Namespace("apps").Resource("deployments").Name("d").Do(ctx).Into(&got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Replicas != 2 || got.Generation != 1 || got.UID == "" {
		t.Fatalf("seeded deployment: status.replicas=%d generation=%d uid=%q", got.Status.Replicas, got.Generation, got.UID)
	}
	for _, ns := range []string{"apps", "default"} {
		if err := c.Get().Resource("namespaces").Name(ns).Do(ctx).Error(); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
}

func TestAddRejectsUnservedKinds(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Nope", "metadata": map[string]any{"name": "x"}}}
	if err := srv.Add(u); !errors.Is(err, fake.ErrInvalidObject) {
		t.Fatalf("Add = %v, want ErrInvalidObject", err)
	}
}

func TestFailNextFailsExactlyNMatchingRequests(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}})
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeJSON), ctxT(t)
	srv.FailNext(fake.Match{Verb: "get", Resource: "configmaps", Name: "c"}, 2, metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError, Message: "injected"})
	get := func(name string) error {
		return c.Get().Namespace("default").Resource("configmaps").Name(name).Do(ctx).Error()
	}
	if err := get("other"); !apierrors.IsNotFound(err) {
		t.Fatalf("non-matching request: %v", err)
	}
	if err := c.Get().Namespace("default").Resource("configmaps").Do(ctx).Error(); err != nil {
		t.Fatalf("list does not match verb get: %v", err)
	}
	for i := range 2 {
		if err := get("c"); !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "injected") {
			t.Fatalf("request %d: %v, want the injected 500", i, err)
		}
	}
	if err := get("c"); err != nil {
		t.Fatalf("third request: %v", err)
	}
}

// In fake time: the delayed request waits exactly until its context ends.
func TestDelayAddsLatencyUntilRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		cfg := srv.InProcessConfig()
		cfg.MaxRetries = -1
		c, err := rest.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		remove := srv.Delay(fake.Match{Verb: "list", Resource: "namespaces"}, time.Hour)
		start := time.Now()
		if err := c.Get().Resource("configmaps").Do(ctx).Error(); err != nil {
			t.Fatalf("non-matching request: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("non-matching request took %s of fake time, want no delay", d)
		}
		short, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := c.Get().Resource("namespaces").Do(short).Error(); err == nil {
			t.Fatal("delayed request finished within its 1m context")
		}
		if d := time.Since(start); d != time.Minute {
			t.Errorf("delayed request ended after %s of fake time, want its context's 1m", d)
		}
		remove()
		start = time.Now()
		if err := c.Get().Resource("namespaces").Do(ctx).Error(); err != nil {
			t.Fatalf("after remove: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("request after remove took %s of fake time, want no delay", d)
		}
	})
}

func TestContinueTokenOlderThanHistoryIsExpired(t *testing.T) {
	srv := fake.NewServer(fake.Options{HistoryWindow: 5})
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeJSON), ctxT(t)
	for _, n := range []string{"a", "b", "c"} {
		if err := srv.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: n}}); err != nil {
			t.Fatal(err)
		}
	}
	var page corev1.ConfigMapList
	if err := c.Get().Namespace("default").Resource("configmaps").Param("limit", "1").Do(ctx).Into(&page); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		_ = srv.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x" + string(rune('a'+i))}})
	}
	err := c.Get().Namespace("default").Resource("configmaps").Param("limit", "1").Param("continue", page.Continue).Do(ctx).Error()
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("stale continue: %v, want 410 Expired", err)
	}
	err = c.Get().Namespace("default").Resource("configmaps").Param("resourceVersion", "1").Param("resourceVersionMatch", "Exact").Do(ctx).Error()
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("exact list below the window: %v, want 410 Expired", err)
	}
}

func TestListAtFutureResourceVersionIsTooLarge(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	cfg := srv.Config()
	cfg.MaxRetries = -1 // the answer carries Retry-After
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	err = c.Get().Resource("namespaces").Param("resourceVersion", "999999").Param("resourceVersionMatch", "NotOlderThan").Do(ctx).Error()
	if !apierrors.IsTimeout(err) || !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		t.Fatalf("got %v, want 504 with ResourceVersionTooLarge", err)
	}
}

// In fake time, with the default one-minute interval.
func TestPeriodicBookmarksCarryTheCurrentResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		for _, ct := range []rest.ContentType{rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
			cfg := srv.InProcessConfig()
			cfg.ContentType = ct
			c, err := rest.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.Get().Namespace("default").Resource("pods").Param("resourceVersion", "0").Param("allowWatchBookmarks", "true").
				Watch(t.Context(), func() runtime.Object { return &corev1.Pod{} })
			if err != nil {
				t.Fatal(err)
			}
			_ = srv.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c" + ct.String()}})
			want := srv.ResourceVersion()
			start := time.Now()
			ev := <-w.ResultChan()
			if ev.Type != watch.Bookmark || ev.Object.(*corev1.Pod).ResourceVersion != itoa(want) {
				t.Fatalf("%s: first event %s, want a BOOKMARK at resourceVersion %d", ct, ev.Type, want)
			}
			if d := time.Since(start); d != time.Minute {
				t.Errorf("%s: bookmark after %s of fake time, want the 1m interval", ct, d)
			}
			w.Stop()
		}
	})
}

func itoa(v uint64) string { b, _ := json.Marshal(v); return string(b) }

func TestRegisteredCustomResourceWithScale(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	srv := fake.NewServer(fake.Options{Resources: []fake.Resource{{Kind: gvk, Resource: "widgets", Namespaced: true, Status: true, Scale: true}}},
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default"},
			"spec":     map[string]any{"replicas": int64(1)},
			"status":   map[string]any{"replicas": int64(1), "selector": "app=w"},
		}})
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeAuto), ctxT(t)
	req := func(verb string) *rest.Request {
		return c.Verb(verb).Group("example.com").Version("v1").Namespace("default").Resource("widgets").Name("w").SubResource("scale")
	}
	var sc autoscalingv1.Scale
	if err := req("GET").Do(ctx).Into(&sc); err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 1 || sc.Status.Selector != "app=w" {
		t.Fatalf("scale %+v", sc)
	}
	sc.Spec.Replicas = 3
	if err := req("PUT").Body(&sc).Do(ctx).Into(&sc); err != nil {
		t.Fatal(err)
	}
	var u unstructured.Unstructured
	if err := c.Get().Group("example.com").Version("v1").Namespace("default").Resource("widgets").Name("w").Do(ctx).Into(&u); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 3 || u.GetGeneration() != 2 {
		t.Fatalf("after scale: replicas=%d generation=%d", r, u.GetGeneration())
	}
	// Protobuf is refused for custom resources; JSON is served instead.
	raw, err := c.Get().Group("example.com").Version("v1").Namespace("default").Resource("widgets").Accept("application/vnd.kubernetes.protobuf").DoRaw(ctx)
	if !apierrors.IsNotAcceptable(err) {
		t.Fatalf("protobuf-only accept: %v %s", err, raw)
	}
}

func TestNonResourceEndpoints(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for path, want := range map[string]string{
		"/healthz":      "ok",
		"/readyz":       "ok",
		"/version":      `"gitVersion":"v1.37.2"`,
		"/api":          `"versions":["v1"]`,
		"/apis/apps":    `"preferredVersion":{"groupVersion":"apps/v1"`,
		"/apis/apps/v1": `"name":"deployments/scale"`,
	} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 1<<20)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body[:n]), want) {
			t.Errorf("%s: %d %.200s, want %q", path, resp.StatusCode, body[:n], want)
		}
	}
	req, _ := http.NewRequest("GET", hs.URL+"/api", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io") {
		t.Fatalf("aggregated discovery content type %q", ct)
	}
}

func TestCloseEndsWatches(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	c, ctx := client(t, srv, rest.ContentTypeJSON), ctxT(t)
	w, err := c.Get().Resource("namespaces").Watch(ctx, func() runtime.Object { return &corev1.Namespace{} })
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	for range w.ResultChan() {
	}
	if srv.Config() != nil {
		t.Fatal("Config after Close should be nil")
	}
}

func FuzzServeHTTP(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments", "/api/v1/namespaces/x/status", "/apis//v1/../", "/api/v1/watch/pods"} {
		f.Add("GET", p, "", "")
		f.Add("POST", p, `{"metadata":{"name":"a"}}`, "application/json")
		f.Add("PATCH", p+"/a", `[{"op":"add","path":"/x","value":1}]`, "application/json-patch+json")
	}
	srv := fake.NewServer(fake.Options{HistoryWindow: 100})
	defer srv.Close()
	f.Fuzz(func(t *testing.T, method, path, body, ct string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t?#%") || strings.Contains(path, "watch") {
			return
		}
		req := httptest.NewRequest("GET", "/", strings.NewReader(body))
		req.Method = method
		req.URL.Path = path
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
	})
}

func TestMetadataOnlyAnswers(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"secret": "x"}})
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeJSON), ctxT(t)
	var one metav1.PartialObjectMetadata
	if err := c.Get().Namespace("default").Resource("configmaps").Name("c").Accept("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1").Do(ctx).Into(&one); err != nil {
		t.Fatal(err)
	}
	if one.Kind != "PartialObjectMetadata" || one.Labels["a"] != "b" {
		t.Fatalf("get: %+v", one)
	}
	raw, err := c.Get().Namespace("default").Resource("configmaps").Accept("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(raw); !strings.Contains(s, `"kind":"PartialObjectMetadataList"`) || strings.Contains(s, `"secret":"x"`) {
		t.Fatalf("list: %s", s)
	}
	_, err = c.Get().Namespace("default").Resource("configmaps").Accept("application/json;as=Table;g=meta.k8s.io;v=v1").DoRaw(ctx)
	if !apierrors.IsNotAcceptable(err) {
		t.Fatalf("table: %v, want 406", err)
	}
}
