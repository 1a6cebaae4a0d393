package fleet_test

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// countingServer serves srv over TLS and HTTP/2 and counts the
// connections opened and closed.
type countingServer struct {
	opened, closed atomic.Int64
	cfg            *rest.Config
}

func serveCounting(t *testing.T, srv *fake.Server) *countingServer {
	t.Helper()
	cs := &countingServer{}
	hs := httptest.NewUnstartedServer(srv)
	hs.EnableHTTP2 = true
	hs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			cs.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			cs.closed.Add(1)
		}
	}
	hs.StartTLS()
	t.Cleanup(hs.Close)
	cs.cfg = &rest.Config{Host: hs.URL, TLS: rest.TLSConfig{
		CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw}),
		// A key of its own, so that no other test's client shares the pool.
		ServerName: "example.com",
	}}
	return cs
}

// The clients of one cluster share one connection, and Stop closes it.
func TestClusterClientsShareOneConnectionAndStopClosesIt(t *testing.T) {
	ctx := t.Context()
	srv := fake.NewServer(fake.Options{}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
	defer srv.Close()
	cs := serveCounting(t, srv)
	cl, err := fleet.New("a", cs.cfg, fleet.Options{Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*corev1.ConfigMap](cl.Client()).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cs.cfg, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := cs.opened.Load(); n != 1 {
		t.Fatalf("the cluster's clients opened %d connections, want 1 shared", n)
	}
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.Stop(); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if open := cs.opened.Load() - cs.closed.Load(); open != 0 {
			return fmt.Errorf("%d connections still open after Stop", open)
		}
		return nil
	})
}

// Start runs the informers, readers read through them, and Stop leaves no
// goroutine behind and makes every read fail with ErrRemoved.
func TestClusterLifecycle(t *testing.T) {
	ctx := t.Context()
	srv := fake.NewServer(fake.Options{}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
	defer srv.Close()
	cs := serveCounting(t, srv)
	if _, err := fleet.New("a", nil, fleet.Options{}); !errors.Is(err, fleet.ErrInvalid) {
		t.Fatalf("New without a config = %v, want ErrInvalid", err)
	}
	before := runtime.NumGoroutine()
	cl, err := fleet.New("a", cs.cfg, fleet.Options{Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Name() != "a" {
		t.Fatalf("Name = %q", cl.Name())
	}
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cms, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, informer.Key{Namespace: "default", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{})
	if err != nil || again != cms {
		t.Fatalf("second Reader = %p, %v; want the first, %p", again, err, cms)
	}
	_, err = informer.Acquire[*corev1.ConfigMap](cl.Factory(), informer.SharedOptions{Namespace: "other"})
	if !errors.Is(err, informer.ErrOptionsConflict) {
		t.Fatalf("an informer with other options = %v, want ErrOptionsConflict", err)
	}

	if err := cl.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Stop(); err != nil {
		t.Fatalf("second Stop = %v", err)
	}
	select {
	case <-cl.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	if _, err := cms.Get(ctx, informer.Key{Namespace: "default", Name: "a"}); !errors.Is(err, informer.ErrStopped) {
		t.Fatalf("read of a stopped cluster's reader = %v, want ErrStopped", err)
	}
	if _, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{}); !errors.Is(err, informer.ErrStopped) {
		t.Fatalf("NewReader after Stop = %v, want ErrStopped", err)
	}
	var fe *fleet.Error
	if err := cl.Start(ctx); !errors.As(err, &fe) || fe.Cluster != "a" || !errors.Is(err, fleet.ErrRemoved) {
		t.Fatalf("Start after Stop = %v, want a *fleet.Error of cluster a wrapping ErrRemoved", err)
	}
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if n := runtime.NumGoroutine(); n > before {
			return fmt.Errorf("%d goroutines after Stop, %d before the cluster", n, before)
		}
		return nil
	})
}
