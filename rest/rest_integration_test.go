package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var nsCounter atomic.Int64

// newNamespace creates a namespace of the test's own.
func newNamespace(t *testing.T, c *rest.Client) string {
	t.Helper()
	name := fmt.Sprintf("rest-it-%d-%d", time.Now().UnixNano()%1_000_000, nsCounter.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Post().Resource("namespaces").Body(ns).Do(context.Background()).Error(); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Delete().Resource("namespaces").Name(name).Do(context.Background()).Error()
	})
	return name
}

func TestConfigMapLifecycleAgainstAPIServer(t *testing.T) {
	cp := testenv.Shared(t)
	for _, tc := range []struct {
		name   string
		ct     rest.ContentType
		wantCT string
	}{
		{"json", rest.ContentTypeJSON, "application/json"},
		{"protobuf", rest.ContentTypeAuto, "application/vnd.kubernetes.protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cp.Config()
			cfg.ContentType = tc.ct
			var watchCT atomic.Value
			cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := rt.RoundTrip(r)
					if err == nil && r.URL.Query().Get("watch") == "true" {
						watchCT.Store(resp.Header.Get("Content-Type"))
					}
					return resp, err
				})
			}
			c, err := rest.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ns := newNamespace(t, c)
			cms := func() *rest.Request { return c.Get().Namespace(ns).Resource("configmaps") }

			// The requests say what they decode into: a Config without a
			// Scheme negotiates protobuf for typed requests only.
			var list corev1.ConfigMapList
			res := cms().Typed(&list).Do(ctx)
			if err := res.Into(&list); err != nil {
				t.Fatalf("list: %v", err)
			}
			if !strings.HasPrefix(res.ContentType(), tc.wantCT) {
				t.Errorf("list answered in %q, want %q", res.ContentType(), tc.wantCT)
			}
			w, err := cms().Params(&metav1.ListOptions{ResourceVersion: list.ResourceVersion}).
				Watch(ctx, func() runtime.Object { return &corev1.ConfigMap{} })
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()
			if ct, _ := watchCT.Load().(string); !strings.HasPrefix(ct, tc.wantCT) {
				t.Errorf("watch answered in %q, want %q", ct, tc.wantCT)
			}

			// Create.
			var created corev1.ConfigMap
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "1"}}
			res = c.Post().Namespace(ns).Resource("configmaps").Body(in).Params(&metav1.CreateOptions{FieldManager: "rest-test"}).Typed(&created).Do(ctx)
			if err := res.Into(&created); err != nil {
				t.Fatalf("create: %v", err)
			}
			if !strings.HasPrefix(res.ContentType(), tc.wantCT) {
				t.Errorf("create answered in %q", res.ContentType())
			}
			// Get.
			var got corev1.ConfigMap
			if err := cms().Name("cm").Params(&metav1.GetOptions{}).Do(ctx).Into(&got); err != nil {
				t.Fatalf("get: %v", err)
			}
			if got.Data["a"] != "1" || got.UID != created.UID {
				t.Errorf("get = %+v", got)
			}
			// List sees it.
			list = corev1.ConfigMapList{}
			if err := cms().Do(ctx).Into(&list); err != nil || len(list.Items) != 1 {
				t.Fatalf("list after create: %d items, %v", len(list.Items), err)
			}
			// Update.
			upd := got.DeepCopy()
			upd.Data["a"] = "2"
			var updated corev1.ConfigMap
			if err := c.Put().Namespace(ns).Resource("configmaps").Name("cm").Body(upd).Do(ctx).Into(&updated); err != nil {
				t.Fatalf("update: %v", err)
			}
			// A stale update conflicts.
			stale := got.DeepCopy()
			stale.Data["a"] = "stale"
			err = c.Put().Namespace(ns).Resource("configmaps").Name("cm").Body(stale).Do(ctx).Error()
			if !apierrors.IsConflict(err) {
				t.Errorf("stale update: %v, want a Conflict", err)
			}
			// Delete, then 404.
			if err := c.Delete().Namespace(ns).Resource("configmaps").Name("cm").Body(&metav1.DeleteOptions{}).Do(ctx).Error(); err != nil {
				t.Fatalf("delete: %v", err)
			}
			err = cms().Name("cm").Do(ctx).Error()
			if !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}

			// The watch saw the three changes, in order, with increasing
			// resourceVersions.
			want := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
			var last uint64
			for i, typ := range want {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("watch ended early: %v", w.Err())
					}
					cm, isCM := ev.Object.(*corev1.ConfigMap)
					if ev.Type != typ || !isCM || cm.Name != "cm" {
						t.Fatalf("event %d = %s %T, want %s of cm", i, ev.Type, ev.Object, typ)
					}
					rv, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
					if err != nil || rv <= last {
						t.Errorf("event %d resourceVersion %q not above %d", i, cm.ResourceVersion, last)
					}
					last = rv
				case <-ctx.Done():
					t.Fatalf("waiting for %s: %v", typ, ctx.Err())
				}
			}
			w.Stop()
			if err := w.Err(); err != nil {
				t.Errorf("Err after Stop = %v", err)
			}
		})
	}
}

func TestRawPathsAgainstAPIServer(t *testing.T) {
	cp := testenv.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	raw, err := c.Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil || string(raw) != "ok" {
		t.Errorf("/readyz = %q, %v", raw, err)
	}
	var groups metav1.APIGroupList
	if err := c.Get().AbsPath("/apis").Do(ctx).Into(&groups); err != nil || len(groups.Groups) == 0 {
		t.Errorf("/apis: %d groups, %v", len(groups.Groups), err)
	}
	// A watch of a missing resource is a NotFound StatusError.
	_, err = c.Get().Group("example.com").Version("v1").Resource("widgets").Watch(ctx, nil)
	if !apierrors.IsNotFound(err) {
		t.Errorf("watch of an unknown resource: %v, want NotFound", err)
	}
}
