package labeler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

// On the in-memory API server: unlabeled Deployments get the label, one
// that already has it (with another value) keeps it, and each gets one
// patch at most.
func TestLabelsWhatLacksTheLabelOnly(t *testing.T) {
	var seed []runtime.Object
	for i := range 20 {
		d := deployment(fmt.Sprintf("d%d", i))
		d.Namespace = "apps"
		seed = append(seed, d)
	}
	mine := deployment("theirs")
	mine.Namespace = "apps"
	mine.Labels[labeler.Label] = "someone-else"
	seed = append(seed, mine)
	srv := fake.NewServer(fake.Options{}, seed...)
	defer srv.Close()

	var patches patchCounter
	cfg := srv.Config()
	cfg.WrapTransport = patches.wrap
	mgr, err := manager.New(manager.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Name: "unit"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	deps := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("apps")
	for {
		l, err := deps.List(ctx, metav1.ListOptions{LabelSelector: labeler.Label + "=unit"})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) == 20 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of 20 labeled", len(l.Items))
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := patches.n.Load(); n != 20 {
		t.Errorf("%d patches, want 20", n)
	}
	d, err := deps.Get(ctx, "theirs", metav1.GetOptions{})
	if err != nil || d.Labels[labeler.Label] != "someone-else" {
		t.Errorf("an existing label was overwritten: %v %v", d.Labels, err)
	}
}

// The informer keeps only Deployments that lack the label, the labeler's
// own writes cause no further reconciles, and a Deployment whose label is
// removed comes back and is labeled again.
func TestRelabelsARemovedLabelAndCachesOnlyUnlabeled(t *testing.T) {
	var seed []runtime.Object
	for i := range 5 {
		d := deployment(fmt.Sprintf("d%d", i))
		d.Namespace = "apps"
		seed = append(seed, d)
	}
	srv := fake.NewServer(fake.Options{}, seed...)
	defer srv.Close()
	var patches patchCounter
	cfg := srv.Config()
	cfg.WrapTransport = patches.wrap
	mgr, err := manager.New(manager.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Name: "unit", Namespace: "apps"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	deps := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("apps")
	cachedInf, err := informer.AcquireMetadata(mgr.Factory(), appsv1.SchemeGroupVersion.WithResource("deployments"),
		informer.SharedOptions{Namespace: "apps", LabelSelector: "!" + labeler.Label})
	if err != nil {
		t.Fatal(err)
	}
	cached := cachedInf.Lister()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("timed out waiting until %s", what)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	labeled := func() int {
		l, err := deps.List(ctx, metav1.ListOptions{LabelSelector: labeler.Label + "=unit"})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}
	waitFor("all 5 are labeled", func() bool { return labeled() == 5 })
	waitFor("the cache holds no labeled Deployment", func() bool { return len(cached.List(labels.Everything())) == 0 })
	// A reconcile is counted after it returns, which may be after its patch
	// is visible: wait for the count rather than read it once.
	waitFor("5 reconciles", func() bool { return reconciles(t, mgr) >= 5 })

	if _, err := deps.Patch(ctx, "d3", types.MergePatchType, []byte(`{"metadata":{"labels":{"`+labeler.Label+`":null}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Patches counted: 5 by the labeler, this one, and the relabeling.
	waitFor("d3 is labeled again", func() bool { return patches.n.Load() == 7 && labeled() == 5 })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// 5 labelings and 1 relabeling. Had the labeler's own patches been
	// enqueued, each would have been reconciled again long before the
	// relabeling round trip completed.
	if got := reconciles(t, mgr); got > 6 {
		t.Errorf("%v reconciles for 6 labelings (the labeler's own patches must not enqueue)", got)
	}
}

// reconciles returns the labeler's reconcile count from mgr's metrics.
func reconciles(t *testing.T, mgr *manager.Manager) float64 {
	t.Helper()
	families, err := mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() == "controller_runtime_reconcile_total" {
			for _, m := range f.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}
