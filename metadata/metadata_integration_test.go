package metadata_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestMetadataOfSecrets(t *testing.T) {
	rc, err := rest.NewClient(testenv.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := "meta-" + time.Now().Format("150405.000000")[7:]
	if err := rc.Post().Resource("namespaces").Body(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Post().Namespace(ns).Resource("secrets").Body(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"a": "b"}}, StringData: map[string]string{"password": "hunter2"}}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	secrets := metadata.New(rc, metadata.Options{}).Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(ns)

	w, err := secrets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := <-w.ResultChan(); ev.Type != watch.Added || ev.Object.(*metav1.PartialObjectMetadata).Name != "s" {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}
	got, err := secrets.Get(ctx, "s", metav1.GetOptions{})
	if err != nil || got.Labels["a"] != "b" || got.Kind != "PartialObjectMetadata" {
		t.Fatalf("get %+v %v", got, err)
	}
	list, err := secrets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Kind != "PartialObjectMetadataList" {
		t.Fatalf("list %+v %v", list, err)
	}
	patched, err := secrets.Patch(ctx, "s", types.MergePatchType, []byte(`{"metadata":{"labels":{"c":"d"}}}`), metav1.PatchOptions{})
	if err != nil || patched.Labels["c"] != "d" {
		t.Fatalf("patch %+v %v", patched, err)
	}
	if err := secrets.Delete(ctx, "s", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.Get(ctx, "s", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
	if err := secrets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}

// contentTypes records the Content-Type of every response.
type contentTypes struct {
	mu   sync.Mutex
	seen map[string]string // method + path + watch → Content-Type
	next http.RoundTripper
}

func (c *contentTypes) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		c.mu.Lock()
		c.seen[req.Method+" "+req.URL.Path+" watch="+req.URL.Query().Get("watch")] = resp.Header.Get("Content-Type")
		c.mu.Unlock()
	}
	return resp, err
}

func TestServerAnswersMetadataInProtobuf(t *testing.T) {
	cfg := testenv.Shared(t).Config()
	rec := &contentTypes{seen: map[string]string{}}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cms := metadata.New(rc, metadata.Options{}).Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("kube-system")
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) == 0 || list.Kind != "PartialObjectMetadataList" || list.Items[0].Name == "" {
		t.Fatalf("list %+v %v", list, err)
	}
	got, err := cms.Get(ctx, list.Items[0].Name, metav1.GetOptions{})
	if err != nil || got.Kind != "PartialObjectMetadata" || got.UID != list.Items[0].UID {
		t.Fatalf("get %+v %v", got, err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if o, ok := ev.Object.(*metav1.PartialObjectMetadata); !ok || ev.Type != watch.Added || o.Name == "" || o.Kind != "PartialObjectMetadata" {
		t.Fatalf("event %v %#v", ev.Type, ev.Object)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for req, ct := range rec.seen {
		if !strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf") {
			t.Errorf("%s answered %q, want protobuf", req, ct)
		}
	}
	if len(rec.seen) != 3 {
		t.Errorf("saw %v, want a list, a get and a watch", rec.seen)
	}
}
