package informer_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) {
	testenv.MainWith(m, testenv.Options{StaticTokens: []testenv.StaticToken{{Token: nobodyToken, User: "informer-test-nobody"}}})
}

// recBackend records the calls the informers make through a Backend.
type recBackend struct {
	inner informer.Backend
	mu    sync.Mutex
	calls []string
}

func (s *recBackend) ListerWatcher(ctx context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	lw, err := s.inner.ListerWatcher(ctx, t)
	if err != nil {
		return nil, err
	}
	return informer.Funcs[informer.Object]{
		ListFunc: func(ctx context.Context, o metav1.ListOptions) (informer.ListResult[informer.Object], error) {
			s.record("list")
			return lw.List(ctx, o)
		},
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				s.record("stream")
			} else {
				s.record("watch")
			}
			return lw.Watch(ctx, o)
		},
	}, nil
}

func (s *recBackend) record(c string) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

func (s *recBackend) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func newClient(t *testing.T, cfg *rest.Config) *client.Client {
	t.Helper()
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rc, client.Options{})
}

func newNamespace(t *testing.T, c *client.Client) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	ns := "inf-" + hex.EncodeToString(b)
	if _, err := client.Typed[*corev1.Namespace](c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.Typed[*corev1.Namespace](c).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	return ns
}

func createConfigMaps(t *testing.T, cms *client.Resource[*corev1.ConfigMap], n int) {
	t.Helper()
	for i := range n {
		if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// converge waits until the cache holds exactly what a fresh LIST returns.
func converge(t *testing.T, inf *informer.Informer[*corev1.ConfigMap], cms *client.Resource[*corev1.ConfigMap]) {
	t.Helper()
	kubegotest.Eventually(t.Context(), t, func(ctx context.Context) error {
		l, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		want := map[string]string{}
		for _, o := range l.Items {
			want[o.Name+"/"+string(o.UID)] = o.ResourceVersion
		}
		got := map[string]string{}
		for _, o := range inf.Lister().List(nil) {
			got[o.Name+"/"+string(o.UID)] = o.ResourceVersion
		}
		if !maps.Equal(got, want) {
			return fmt.Errorf("cache (%d objects) does not match a fresh LIST (%d objects)", len(got), len(want))
		}
		return nil
	})
}

// The informer's initial state comes by streaming watch on a real server,
// with no LIST, and the cache then follows a writer; a compact cache too.
func TestIntegrationStreamingSyncAndChurn(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) { testStreamingSyncAndChurn(t, compact) })
	}
}

func testStreamingSyncAndChurn(t *testing.T, compact bool) {
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	createConfigMaps(t, cms, 200)

	src := &recBackend{inner: c}
	f := informer.NewFactory(src, informer.FactoryOptions{})
	inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: ns, Decoded: !compact}))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	f.Start(ctx)
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if err := f.WaitForSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	if calls := src.log(); calls[0] != "stream" || contains(calls, "list") {
		t.Fatalf("calls %v: want a streaming initial state and no LIST", calls)
	}
	if n := inf.Lister().Len(); n != 200 {
		t.Fatalf("synced %d ConfigMaps, want 200", n)
	}
	for i := range 150 {
		name := fmt.Sprintf("cm-%d", i%250)
		switch i % 3 {
		case 0:
			cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name + "-new"}}, metav1.CreateOptions{})
		case 1:
			if o, err := cms.Get(ctx, name, metav1.GetOptions{}); err == nil {
				o.Data = map[string]string{"i": fmt.Sprint(i)}
				cms.Update(ctx, o, metav1.UpdateOptions{})
			}
		case 2:
			cms.Delete(ctx, name, metav1.DeleteOptions{})
		}
	}
	converge(t, inf, cms)
	if o, _ := inf.Lister().Namespace(ns).Get("cm-1"); o != nil && o.ManagedFields != nil {
		t.Error("managedFields kept by default")
	}
	cancel()
	if err := f.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A metadata-only informer through the same factory.
func TestIntegrationMetadataInformer(t *testing.T) {
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	createConfigMaps(t, client.Typed[*corev1.ConfigMap](c).Namespace(ns), 5)
	f := informer.NewFactory(c, informer.FactoryOptions{})
	meta := mustAcquire(informer.AcquireMetadata(f, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, informer.SharedOptions{Namespace: ns}))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	o, ok := meta.Lister().Namespace(ns).Get("cm-3")
	if !ok || o.UID == "" || o.ResourceVersion == "" {
		t.Fatalf("metadata cache: %+v, %v", o, ok)
	}
	cancel()
	f.Wait()
}

// A server without the WatchList feature rejects streaming at once: the
// informer lists instead, without waiting for the bounded wait.
func TestIntegrationListFallbackWithoutWatchList(t *testing.T) {
	cp := testenv.Shared(t)
	as, err := cp.StartAPIServer(t.Context(), "--feature-gates=WatchList=false")
	if err != nil {
		t.Fatal(err)
	}
	defer as.Stop()
	c := newClient(t, as.Config())
	ns := newNamespace(t, c)
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	createConfigMaps(t, cms, 20)
	src := &recBackend{inner: c}
	var logs defaultlogtest.Output
	f := informer.NewFactory(src, informer.FactoryOptions{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: ns}))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	syncCtx, syncCancel := context.WithTimeout(ctx, 20*time.Second) // well under the 1 minute bounded wait
	defer syncCancel()
	if err := f.WaitForSync(syncCtx); err != nil {
		t.Fatalf("%v (calls %v)", err, src.log())
	}
	if calls := src.log(); !contains(calls, "list") {
		t.Fatalf("calls %v: want the LIST fallback", calls)
	}
	if inf.Lister().Len() != 20 {
		t.Fatalf("synced %d", inf.Lister().Len())
	}
	// The fallback is said once, at debug level, and is not a failure.
	out := logs.String()
	if n := strings.Count(out, "listing instead"); n != 1 || strings.Contains(out, "level=WARN") || strings.Contains(out, "level=ERROR") {
		t.Fatalf("want one debug line for the fallback and no warning, got:\n%s", out)
	}
	cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	converge(t, inf, cms)
	cancel()
	f.Wait()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
