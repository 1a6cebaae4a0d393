package widget_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/crdcontroller/widget"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// On a real API server: the CRD is installed and established, Widgets
// round-trip as the Go type, and the controller writes their status
// through the status subresource for each new generation.
func TestWidgetControllerOnARealServer(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	reg := client.NewRegistry()
	widget.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cp.Config(), Client: client.Options{Registry: reg}})
	if err != nil {
		t.Fatal(err)
	}
	if err := widget.Install(ctx, mgr.Client()); err != nil {
		t.Fatal(err)
	}
	ns := "widgets-it"
	if _, err := client.Typed[*corev1.Namespace](mgr.Client()).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	widgets := client.Typed[*widget.Widget](mgr.Client()).Namespace(ns)
	if _, err := widgets.Create(ctx, &widget.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: widget.Spec{Color: "red", Size: 2}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widget.Setup(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()

	waitFor := func(summary string) {
		t.Helper()
		for {
			w, err := widgets.Get(ctx, "w", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if w.Status.ObservedGeneration == w.Generation && w.Status.Summary == summary {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("status %+v at generation %d; want %q", w.Status, w.Generation, summary)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	waitFor("2 red widget(s)")
	// A spec change is a new generation; the status follows.
	if _, err := widgets.Patch(ctx, "w", "application/merge-patch+json", []byte(`{"spec":{"size":5}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("5 red widget(s)")
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
