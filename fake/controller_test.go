package fake_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// TestHostsALabelerController runs the shape of the labeler example on the
// fake: a streaming watch of Deployments, and a server-side apply of a
// label for each one that lacks it, until every Deployment is labeled. It
// must finish well under a second.
func TestHostsALabelerController(t *testing.T) {
	el := runLabeler(t, 50)
	// Timing is reported, not asserted: the machine running the tests may
	// be loaded. BenchmarkLabeler measures it.
	t.Logf("labeled 50 deployments in %v", el)
}

// BenchmarkLabeler measures the labeler's shape end to end on a fresh
// server with 50 Deployments (the target: well under a second).
func BenchmarkLabeler(b *testing.B) {
	for b.Loop() {
		runLabeler(b, 50)
	}
}

// runLabeler seeds n Deployments, labels them all as the labeler example
// does and checks the result. It returns the time from the first watch to
// the last label seen.
func runLabeler(t testing.TB, n int) time.Duration {
	t.Helper()
	var seed []runtime.Object
	for i := range n {
		d := newDeployment(fmt.Sprintf("d%02d", i), 1)
		d.Namespace = "apps"
		seed = append(seed, d)
	}
	srv := fake.NewServer(fake.Options{}, seed...)
	defer srv.Close()
	cfg := srv.Config()
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	w, err := c.Get().Group("apps").Version("v1").Resource("deployments").
		Param("sendInitialEvents", "true").Param("resourceVersionMatch", "NotOlderThan").Param("allowWatchBookmarks", "true").
		Watch(ctx, func() runtime.Object { return &appsv1.Deployment{} })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	labeled := map[string]bool{}
	for len(labeled) < n {
		var ev watch.Event
		select {
		case ev = <-w.ResultChan():
		case <-ctx.Done():
			t.Fatalf("labeled %d of %d before timeout", len(labeled), n)
		}
		d, ok := ev.Object.(*appsv1.Deployment)
		if !ok || ev.Type == watch.Bookmark || ev.Type == watch.Deleted {
			continue
		}
		if d.Labels["labeled"] == "true" {
			labeled[d.Name] = true
			continue
		}
		apply := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"labels":{"labeled":"true"}}}`, d.Name)
		err := c.Patch(types.ApplyYAMLPatchType).Group("apps").Version("v1").Namespace(d.Namespace).Resource("deployments").Name(d.Name).
			Param("fieldManager", "labeler").Body([]byte(apply)).Do(ctx).Error()
		if err != nil {
			t.Fatalf("apply %s: %v", d.Name, err)
		}
	}
	el := time.Since(start)
	// The apply owns only the label: the spec stays with its creator.
	var d appsv1.Deployment
	if err := c.Get().Group("apps").Version("v1").Namespace("apps").Resource("deployments").Name("d00").Do(ctx).Into(&d); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 1 || d.Generation != 1 || len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("apply of a label changed the spec: %+v", d.Spec)
	}
	if got := managers(&d); len(got) != 2 || got[0] != "fake:Update" || got[1] != "labeler:Apply" {
		t.Fatalf("managers %v", got)
	}
	return el
}
