package crd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/fake"
)

var foosGVR = schema.GroupVersionResource{Group: "samplecontroller.example.com", Version: "v1alpha1", Resource: "foos"}

func TestInstallOnTheFake(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	dc, err := dynamic.NewForConfig(srv.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := crd.Parse([]byte(fooYAML + "\n---\n" + barJSON))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for range 2 { // a second install updates in place
		if err := crd.Install(ctx, dc, defs, crd.InstallOptions{}); err != nil {
			t.Fatalf("Install: %v", err)
		}
	}
	if _, err := dc.Resource(foosGVR).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("foos not served after Install: %v", err)
	}
	if defs[0].Object["status"] == nil {
		t.Error("Install modified the definitions it was given (status removed)")
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	dc, err := dynamic.NewForConfig(srv.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err = crd.Wait(ctx, dc, "missing.example.com")
	var ns *crd.NotServedError
	if !errors.As(err, &ns) || !errors.Is(err, crd.ErrNotServed) || !errors.Is(err, context.DeadlineExceeded) || ns.Name != "missing.example.com" {
		t.Fatalf("Wait = %v, want a *NotServedError wrapping the deadline", err)
	}
}
