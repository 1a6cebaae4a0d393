package labeler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/fake"
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
	mgr, err := controller.NewManager(controller.ManagerOptions{Config: cfg})
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
	deps := client.For[*appsv1.Deployment](mgr.Client()).Namespace("apps")
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
