package discovery_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type countingRT struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// countedClient returns a rest client on the shared control plane and the
// counter of its requests.
func countedClient(t *testing.T) (*rest.Client, *countingRT) {
	t.Helper()
	cfg := testenv.Shared(t).Config()
	rt := &countingRT{}
	cfg.WrapTransport = func(next http.RoundTripper) http.RoundTripper { rt.next = next; return rt }
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc, rt
}

func TestCachedDiscoveryRequestCounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	tests := []struct {
		name string
		opts discovery.Options
		// shared: the client reused from the previous step (memory warm)
		reuse bool
		want  func(n int64) bool
	}{
		{"aggregated cold", discovery.Options{CacheDir: dir}, false, func(n int64) bool { return n == 2 }},
		{"aggregated warm in memory", discovery.Options{CacheDir: dir}, true, func(n int64) bool { return n == 0 }},
		{"new process warm from disk", discovery.Options{CacheDir: dir}, false, func(n int64) bool { return n == 0 }},
		{"legacy cold", discovery.Options{DisableAggregated: true}, false, func(n int64) bool { return n > 10 }},
		{"legacy warm in memory", discovery.Options{DisableAggregated: true}, true, func(n int64) bool { return n == 0 }},
	}
	var d *discovery.Client
	var groups int
	var lastCount *countingRT
	for _, tt := range tests {
		rc, count := countedClient(t)
		if !tt.reuse {
			d = discovery.New(rc, tt.opts)
		} else {
			count = lastCount
		}
		before := count.n.Load()
		snap, err := d.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		n := count.n.Load() - before
		t.Logf("%-28s %3d requests (%d groups, aggregated=%v)", tt.name, n, len(snap.Groups), snap.Aggregated)
		if !tt.want(n) {
			t.Errorf("%s: %d requests", tt.name, n)
		}
		if groups == 0 {
			groups = len(snap.Groups)
		} else if len(snap.Groups) != groups {
			t.Errorf("%s: %d groups, earlier %d", tt.name, len(snap.Groups), groups)
		}
		lastCount = count
	}
	v, err := d.ServerVersion(ctx)
	if err != nil || v.Major != "1" {
		t.Fatalf("version %v %v", v, err)
	}
	t.Logf("server version %s", v.GitVersion)
}

func TestRESTMapperFindsACRDCreatedAfterStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rc, count := countedClient(t)
	m := discovery.NewRESTMapper(discovery.New(rc, discovery.Options{}), discovery.MapperOptions{MinRefreshInterval: 200 * time.Millisecond})
	if _, err := m.RESTMapping(ctx, schema.GroupKind{Group: "apps", Kind: "Deployment"}); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	group := "mapper-" + hex.EncodeToString(b) + ".test"
	gk := schema.GroupKind{Group: group, Kind: "Gadget"}
	if _, err := m.RESTMapping(ctx, gk); !errors.Is(err, discovery.ErrNoMatch) {
		t.Fatalf("before the CRD: %v, want ErrNoMatch", err)
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Cluster",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": []any{"gd"}},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	if err := rc.Post().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").Body(crd).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	defer rc.Delete().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets." + group).Body(&metav1.DeleteOptions{}).Do(context.Background())

	start, refreshes := time.Now(), m.Refreshes()
	for {
		mp, err := m.RESTMapping(ctx, gk)
		if err == nil {
			if mp.Resource.Resource != "gadgets" || mp.Namespaced {
				t.Fatalf("mapping %+v", mp)
			}
			break
		}
		if !errors.Is(err, discovery.ErrNoMatch) {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the mapper never found the CRD")
		case <-time.After(20 * time.Millisecond):
		}
	}
	elapsed := time.Since(start)
	extra := m.Refreshes() - refreshes
	t.Logf("found the CRD after %v with %d refreshes (%d requests in total)", elapsed.Round(time.Millisecond), extra, count.n.Load())
	// Polling every 20ms with a 200ms limit: at most one refresh per 200ms.
	if maxRefreshes := int(elapsed/(200*time.Millisecond)) + 1; extra > maxRefreshes {
		t.Fatalf("%d refreshes in %v, rate limit allows %d", extra, elapsed, maxRefreshes)
	}
	if mp, err := m.ResourceFor(ctx, schema.GroupVersionResource{Resource: "gd"}); err != nil || mp.Kind.Kind != "Gadget" {
		t.Fatalf("short name: %+v %v", mp, err)
	}
	// The same lookups through apimachinery's meta.RESTMapper.
	mm := m.Meta(ctx)
	if gvr, err := mm.ResourceFor(schema.GroupVersionResource{Resource: "gd"}); err != nil || gvr.Resource != "gadgets" {
		t.Fatalf("meta ResourceFor(gd) = %v, %v", gvr, err)
	}
	if mp, err := mm.RESTMapping(gk); err != nil || mp.Scope.Name() != meta.RESTScopeNameRoot {
		t.Fatalf("meta RESTMapping = %+v, %v", mp, err)
	}
	if s, err := mm.ResourceSingularizer("gadgets"); err != nil || s != "gadget" {
		t.Fatalf("meta ResourceSingularizer = %q, %v", s, err)
	}
	if _, err := mm.RESTMapping(schema.GroupKind{Group: "nope." + group, Kind: "Nope"}); !meta.IsNoMatchError(err) {
		t.Fatalf("meta RESTMapping of an unknown kind: %v", err)
	}
}
