package fake_test

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	const n = 50
	var seed []runtime.Object
	for i := range n {
		d := newDeployment(fmt.Sprintf("d%02d", i), 1)
		d.Namespace = "apps"
		seed = append(seed, d)
	}
	srv := fake.NewServer(fake.Options{}, seed...)
	defer srv.Close()
	c, ctx := client(t, srv, rest.ContentTypeAuto), ctxT(t)
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
	t.Logf("labeled %d deployments in %v", n, el)
	if el > time.Second {
		t.Fatalf("labeling %d deployments took %v, want < 1s", n, el)
	}
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
	_ = metav1.Now
}
