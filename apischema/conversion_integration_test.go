package apischema_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema/apischematest"
	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/examples/gizmo/gizmo"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

// A definition of two versions built from their Go types, with its
// conversion webhook declared in the definition (crd.Conversion): random
// objects created in either version read back in the other as the
// conversion says, nothing pruned.
func TestIntegrationTwoVersionsConvertThroughTheWebhook(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	files, err := certs.Write(t.TempDir(), pair)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := webhook.New(webhook.Options{Addr: "127.0.0.1:0", CertFile: files.CertFile, KeyFile: files.KeyFile, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	gizmo.Serve(srv, admission.Options{Logger: log})
	srvCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Start(srvCtx) }()
	defer func() { stop(); <-served }()
	select {
	case <-srv.Serving():
	case err := <-served:
		t.Fatal(err)
	}

	def, err := crd.Build(crd.Definition{
		Group: gizmo.Group, Kind: "Gizmo",
		Versions: []crd.Version{
			{Name: "v1", Type: crd.TypeOf[gizmo.GizmoV1]()},
			{Name: "v2", Type: crd.TypeOf[gizmo.Gizmo](), Storage: true},
		},
		Conversion: &crd.Conversion{URL: "https://" + srv.Addr().String() + gizmo.ConvertPath, CABundle: ca.CertPEM},
	})
	if err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	v1, v2 := dc.Resource(gizmo.V1).Namespace("default"), dc.Resource(gizmo.V2).Namespace("default")

	n := 1000
	f, r := apischematest.Filler(3), rand.New(rand.NewPCG(3, 3))
	start := time.Now()
	for i := range n {
		var color string
		f.Fill(&color)
		size := r.IntN(100_000)
		name := fmt.Sprintf("g-%d", i)
		if i%2 == 0 {
			in := &gizmo.GizmoV1{TypeMeta: metav1.TypeMeta{APIVersion: gizmo.V1.GroupVersion().String(), Kind: "Gizmo"},
				ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gizmo.SpecV1{Size: size, Color: color}}
			if _, err := v1.Create(ctx, toUnstructured(t, in), metav1.CreateOptions{}); err != nil {
				t.Fatalf("create v1 %d: %v", i, err)
			}
			u, err := v2.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := fromUnstructured[gizmo.Gizmo](t, u)
			want := gizmo.Spec{Color: color}
			if size != 0 {
				want.Length = fmt.Sprintf("%dcm", size)
			}
			if got.Spec != want {
				t.Fatalf("v1 %+v read as v2 %+v, want %+v", in.Spec, got.Spec, want)
			}
			continue
		}
		in := &gizmo.Gizmo{TypeMeta: metav1.TypeMeta{APIVersion: gizmo.V2.GroupVersion().String(), Kind: "Gizmo"},
			ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gizmo.Spec{Length: fmt.Sprintf("%dcm", size), Color: color}}
		if _, err := v2.Create(ctx, toUnstructured(t, in), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create v2 %d: %v", i, err)
		}
		u, err := v1.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fromUnstructured[gizmo.GizmoV1](t, u); got.Spec != (gizmo.SpecV1{Size: size, Color: color}) {
			t.Fatalf("v2 %+v read as v1 %+v", in.Spec, got.Spec)
		}
	}
	t.Logf("%d gizmos created in one version and read in the other in %v", n, time.Since(start))
}
