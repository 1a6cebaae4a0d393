package manager_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

func deployment(ns, name string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// eventually polls cond until it holds (kubegotest.Poll, with its
// default bound), failing t with what it waited for.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	kubegotest.Eventually(t.Context(), t, func(context.Context) error {
		if !cond() {
			return fmt.Errorf("waiting for %s", what)
		}
		return nil
	})
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// labelOnce is a small labeler: it patches a label onto each Deployment.
func labelOnce(mgr *manager.Manager, calls *atomic.Int64) controller.Reconciler {
	cache, cerr := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	deps := client.Typed[*appsv1.Deployment](mgr.Client())
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		calls.Add(1)
		if cerr != nil {
			return controller.Result{}, cerr
		}
		d, err := cache.Get(ctx, req.Key)
		if err != nil || d.Labels["done"] == "yes" {
			return controller.Result{}, nil
		}
		_, err = deps.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"done":"yes"}}}`), metav1.PatchOptions{})
		return controller.Result{}, err
	})
}

func TestManagerServesProbesAndMetrics(t *testing.T) {
	var seed []runtime.Object
	for i := range 10 {
		seed = append(seed, deployment("apps", fmt.Sprintf("d%d", i)))
	}
	srv := fake.NewServer(fake.Options{}, seed...)
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config(), HealthAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	ctl, err := mgr.NewController(controller.Options{Name: "labels", Reconciler: labelOnce(mgr, &calls),
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}})
	if err != nil {
		t.Fatal(err)
	}

	// Before Start the caches are not synced: not ready, but healthy.
	rec := httptest.NewRecorder()
	mgr.HealthHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "[-]informers failed") {
		t.Fatalf("readyz before start: %d %q", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	mgr.HealthHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz before start: %d %q", rec.Code, rec.Body)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Serving()
	health := "http://" + mgr.HealthAddr().String()
	metrics := "http://" + mgr.MetricsAddr().String() + "/metrics"

	eventually(t, "all labeled", func() bool {
		l, err := client.Typed[*appsv1.Deployment](mgr.Client()).List(ctx, metav1.ListOptions{LabelSelector: "done=yes"})
		return err == nil && len(l.Items) == 10
	})
	eventually(t, "readyz", func() bool { code, _ := get(t, health+"/readyz"); return code == 200 })
	// The server applies a patch before the client has counted its
	// response: wait for the count of the tenth.
	eventually(t, "10 PATCH requests counted", func() bool {
		_, body := get(t, metrics)
		return strings.Contains(body, `rest_client_requests_total{code="200",method="PATCH"} 10`)
	})
	if !ctl.Started() {
		t.Error("controller not started")
	}
	if code, body := get(t, health+"/healthz?verbose"); code != 200 || !strings.Contains(body, "[+]ping ok") {
		t.Errorf("healthz: %d %q", code, body)
	}
	code, body := get(t, metrics)
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{
		`rest_client_requests_total{code="200",method="GET"}`,
		`rest_client_requests_total{code="200",method="PATCH"} 10`,
		`rest_client_request_duration_seconds_count{verb="PATCH"} 10`,
		`workqueue_adds_total{controller="labels",name="labels"}`,
		`controller_runtime_reconcile_total{controller="labels",result="success"}`,
		`controller_runtime_reconcile_time_seconds_count{controller="labels"}`,
		`controller_runtime_max_concurrent_reconciles{controller="labels"} 1`,
		`kubego_informer_synced{informer=`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}

func TestManagerStopsWhenARunnableFails(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	errBoom := errors.New("boom")
	stopped := make(chan struct{})
	_ = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { <-ctx.Done(); close(stopped); return nil }))
	_ = mgr.Add(manager.RunnableFunc(func(context.Context) error { return errBoom }))
	if err := mgr.Start(t.Context()); !errors.Is(err, errBoom) {
		t.Fatalf("Start = %v, want %v", err, errBoom)
	}
	<-stopped
	if err := mgr.Start(t.Context()); !errors.Is(err, manager.ErrAlreadyStarted) {
		t.Fatalf("second Start = %v", err)
	}
	if err := mgr.Add(manager.RunnableFunc(func(context.Context) error { return nil })); !errors.Is(err, manager.ErrStopped) {
		t.Fatalf("Add after the Manager stopped = %v, want ErrStopped", err)
	}
}

func TestNewNeedsAConfig(t *testing.T) {
	if _, err := manager.New(manager.Options{}); !errors.Is(err, manager.ErrInvalidOptions) {
		t.Fatalf("New = %v", err)
	}
}

func TestTwoControllersShareOneRegistry(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, nil })
	for _, name := range []string{"a", "b"} {
		if _, err := mgr.NewController(controller.Options{Name: name, Reconciler: r, Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); err != nil {
			t.Fatalf("controller %s: %v", name, err)
		}
	}
	// The same name twice collides on the workqueue series.
	if _, err := mgr.NewController(controller.Options{Name: "a", Reconciler: r, Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); err == nil {
		t.Fatal("a second controller named a was accepted")
	}
}
