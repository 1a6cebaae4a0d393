package discovery_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/clock/clocktest"
	"github.com/kubego/kubego/discovery"
)

func TestAggregatedDiscoveryTakesTwoRequests(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	d := discovery.New(newServer(t, f), discovery.Options{})
	snap, err := d.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Aggregated || f.count.Load() != 2 {
		t.Fatalf("aggregated=%v after %d requests, want aggregated after 2", snap.Aggregated, f.count.Load())
	}
	pods := snap.Resources(schema.GroupVersion{Version: "v1"})
	if len(pods) != 2 || pods[0].Name != "pods" || !pods[0].Namespaced || pods[0].Kind.Kind != "Pod" || !slices.Equal(pods[0].Subresources, []string{"status", "log"}) {
		t.Fatalf("core resources %+v", pods)
	}
	if apps := snap.Group("apps"); apps == nil || apps.Preferred().Version != "v1" || len(apps.Versions) != 2 {
		t.Fatalf("apps group %+v", apps)
	}
}

func TestLegacyFallbackReportsFailingGroupsWithoutFailing(t *testing.T) {
	f := &fakeDiscovery{failing: map[string]bool{"/apis/batch/v1": true}}
	d := discovery.New(newServer(t, f), discovery.Options{})
	snap, err := d.Snapshot(context.Background())
	var pe *discovery.PartialError
	if !errors.As(err, &pe) || !errors.Is(err, discovery.ErrPartial) {
		t.Fatalf("error %v, want *PartialError", err)
	}
	if len(pe.Failed) != 1 || pe.Failed[schema.GroupVersion{Group: "batch", Version: "v1"}] == nil {
		t.Fatalf("failed %v, want batch/v1 only", pe.Failed)
	}
	if snap == nil || snap.Aggregated {
		t.Fatalf("snapshot %+v", snap)
	}
	if snap.Group("batch") != nil {
		t.Error("failed group is in the snapshot")
	}
	deps := snap.Resources(schema.GroupVersion{Group: "apps", Version: "v1"})
	if len(deps) != 1 || deps[0].Name != "deployments" || !slices.Equal(deps[0].Subresources, []string{"scale"}) || !slices.Equal(deps[0].ShortNames, []string{"deploy"}) {
		t.Fatalf("apps/v1 resources %+v", deps)
	}
	// 2 roots + 4 group/versions.
	if n := f.count.Load(); n != 6 {
		t.Fatalf("%d requests, want 6", n)
	}
}

func TestStaleAggregatedVersionIsPartial(t *testing.T) {
	f := &fakeDiscovery{aggregated: true, stale: true}
	d := discovery.New(newServer(t, f), discovery.Options{})
	snap, err := d.Snapshot(context.Background())
	if !errors.Is(err, discovery.ErrStale) || snap == nil {
		t.Fatalf("err %v snap %v, want ErrStale with a snapshot", err, snap)
	}
	if len(snap.Group("apps").Versions) != 1 {
		t.Fatal("stale version kept")
	}
}

func TestRootFailureFailsTheAnswer(t *testing.T) {
	f := &fakeDiscovery{failing: map[string]bool{"/apis": true}}
	d := discovery.New(newServer(t, f), discovery.Options{})
	snap, err := d.Snapshot(context.Background())
	if err == nil || snap != nil || errors.Is(err, discovery.ErrPartial) {
		t.Fatalf("snap %v err %v, want a plain error", snap, err)
	}
}

func TestMemoryCacheHonoursTTLAndInvalidation(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	clock := clocktest.New(time.Unix(1000, 0))
	d := discovery.New(newServer(t, f), discovery.Options{TTL: time.Minute, Clock: clock})
	ctx := context.Background()
	steps := []struct {
		name  string
		do    func()
		total int64
	}{
		{"cold", func() {}, 2},
		{"warm", func() {}, 2},
		{"still fresh", func() { clock.Advance(59 * time.Second) }, 2},
		{"expired", func() { clock.Advance(2 * time.Second) }, 4},
		{"invalidated", d.Invalidate, 6},
	}
	for _, s := range steps {
		s.do()
		if _, err := d.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.count.Load(); got != s.total {
			t.Fatalf("%s: %d requests in total, want %d", s.name, got, s.total)
		}
	}
}

func TestDiskCacheWarmsANewClient(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	rc := newServer(t, f)
	dir := t.TempDir()
	clock := clocktest.New(time.Unix(1000, 0))
	ctx := context.Background()
	if _, err := discovery.New(rc, discovery.Options{CacheDir: dir, TTL: time.Hour, Clock: clock}).Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	second := discovery.New(rc, discovery.Options{CacheDir: dir, TTL: time.Hour, Clock: clock})
	snap, err := second.Snapshot(ctx)
	if err != nil || snap.Group("apps") == nil {
		t.Fatal(snap, err)
	}
	if n := f.count.Load(); n != 2 {
		t.Fatalf("%d requests, want 2 (second client read the disk)", n)
	}
	clock.Advance(2 * time.Hour)
	third := discovery.New(rc, discovery.Options{CacheDir: dir, TTL: time.Hour, Clock: clock})
	if _, err := third.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.count.Load(); n != 4 {
		t.Fatalf("%d requests, want 4 (disk copy expired)", n)
	}
	third.Invalidate()
	fourth := discovery.New(rc, discovery.Options{CacheDir: dir, TTL: 10 * time.Hour, Clock: clock})
	if _, err := fourth.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.count.Load(); n != 6 {
		t.Fatalf("%d requests, want 6 (invalidation removed the file)", n)
	}
}

func TestConcurrentMissesShareOneFetch(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	d := discovery.New(newServer(t, f), discovery.Options{})
	ctx := context.Background()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := d.Snapshot(ctx)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count.Load(); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestServerVersion(t *testing.T) {
	d := discovery.New(newServer(t, &fakeDiscovery{}), discovery.Options{})
	v, err := d.ServerVersion(context.Background())
	if err != nil || v.GitVersion != "v1.37.2" {
		t.Fatal(v, err)
	}
}
