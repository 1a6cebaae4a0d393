package widget_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/crdcontroller/widget"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/manager"
)

func TestInstallsTheCRDAndReconcilesWidgets(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	reg := client.NewRegistry()
	widget.Register(reg)
	mgr, err := manager.New(manager.Options{Config: srv.Config(), Client: client.Options{Registry: reg}})
	if err != nil {
		t.Fatal(err)
	}
	if err := widget.Install(ctx, mgr.Client()); err != nil {
		t.Fatal(err)
	}
	if err := widget.Install(ctx, mgr.Client()); err != nil {
		t.Fatalf("second install: %v", err)
	}
	widgets := client.Typed[*widget.Widget](mgr.Client()).Namespace("default")
	if _, err := widgets.Create(ctx, &widget.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: widget.Spec{Color: "red", Size: 2}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widget.Setup(mgr); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	mctx, stop := context.WithCancel(ctx)
	go func() { done <- mgr.Start(mctx) }()
	for {
		w, err := widgets.Get(ctx, "w", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if w.Status.ObservedGeneration == w.Generation && w.Status.Summary == "2 red widget(s)" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("status never written: %+v (generation %d)", w.Status, w.Generation)
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
