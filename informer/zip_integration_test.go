package informer_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/testenv"
)

// settings returns about n bytes of configuration text, different for
// each seed.
func settings(seed, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "service-%d-%d:\n  host: svc-%d.example.svc\n  port: %d\n  retries: %d\n", seed, i, i*seed, 8000+i, i%5)
	}
	return b.String()[:n]
}

// Large ConfigMaps, which a compact cache keeps compressed, read back
// from a real server's watch as the server holds them, with compression
// on and off: Get, List with a selector, and an update by watch.
func TestIntegrationLargeConfigMapsReadBackWhole(t *testing.T) {
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	for i := range 4 {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%d", i), Labels: map[string]string{"size": "big", "n": fmt.Sprint(i)}},
			Data:       map[string]string{"app.yaml": settings(i, 6<<10), "small": "x"},
		}
		if _, err := cms.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableCompression=%t", plain), func(t *testing.T) {
			f := informer.NewFactory(c, informer.FactoryOptions{})
			inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: ns, DisableCompression: plain}))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer func() { cancel(); f.Wait() }()
			f.Start(ctx)
			if err := f.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			same := func(ctx context.Context, name string) error {
				want, err := cms.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				got, ok := inf.Lister().Namespace(ns).Get(name)
				switch {
				case !ok:
					return fmt.Errorf("%s not cached", name)
				case got.ResourceVersion != want.ResourceVersion:
					return fmt.Errorf("%s cached at %s, server at %s", name, got.ResourceVersion, want.ResourceVersion)
				case !maps.Equal(got.Data, want.Data) || !maps.Equal(got.Labels, want.Labels):
					return fmt.Errorf("%s cached with other data or labels", name)
				}
				return nil
			}
			for i := range 4 {
				if err := same(ctx, fmt.Sprintf("big-%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			if l := inf.Lister().Namespace(ns).List(labels.SelectorFromSet(labels.Set{"n": "2"})); len(l) != 1 || l[0].Data["app.yaml"] != settings(2, 6<<10) {
				t.Fatalf("List by label found %d, or other data", len(l))
			}
			cm, err := cms.Get(ctx, "big-1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm.Data["app.yaml"] = settings(100+len(t.Name()), 7<<10)
			if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			kubegotest.Eventually(ctx, t, func(ctx context.Context) error { return same(ctx, "big-1") })
		})
	}
}
