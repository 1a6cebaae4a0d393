package manager_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/manager"
)

// recorder is a minimal in-memory TracerProvider.
type spanRecorder struct {
	embedded.TracerProvider
	mu    sync.Mutex
	spans []*recSpan
}

func (p *spanRecorder) Tracer(string, ...trace.TracerOption) trace.Tracer { return &recTracer{p: p} }

type recTracer struct {
	embedded.Tracer
	p *spanRecorder
}

func (t *recTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent, _ := trace.SpanFromContext(ctx).(*recSpan)
	cfg := trace.NewSpanStartConfig(opts...)
	s := &recSpan{name: name, parent: parent, attrs: cfg.Attributes()}
	t.p.mu.Lock()
	t.p.spans = append(t.p.spans, s)
	t.p.mu.Unlock()
	return trace.ContextWithSpan(ctx, s), s
}

type recSpan struct {
	noop.Span
	name   string
	parent *recSpan
	mu     sync.Mutex
	attrs  []attribute.KeyValue
	status codes.Code
	ended  bool
}

func (s *recSpan) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	s.attrs = append(s.attrs, kv...)
	s.mu.Unlock()
}
func (s *recSpan) SetStatus(c codes.Code, _ string) { s.mu.Lock(); s.status = c; s.mu.Unlock() }
func (s *recSpan) End(...trace.SpanEndOption)       { s.mu.Lock(); s.ended = true; s.mu.Unlock() }
func (s *recSpan) IsRecording() bool                { return true }

func (s *recSpan) attr(k string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kv := range s.attrs {
		if string(kv.Key) == k {
			return kv.Value.Emit()
		}
	}
	return ""
}

func TestTracesReconcilesAndTheirRequests(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, deployment("apps", "web"))
	defer srv.Close()
	tp := &spanRecorder{}
	mgr, err := manager.New(manager.Options{Config: srv.Config(), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	if _, err := mgr.NewController(controller.Options{Name: "labels", Reconciler: labelOnce(mgr, &calls),
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	eventually(t, "labeled", func() bool {
		d, err := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("apps").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Labels["done"] == "yes"
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	var reconcile, patch *recSpan
	for _, s := range tp.spans {
		switch s.name {
		case "Reconcile labels":
			if reconcile == nil {
				reconcile = s
			}
		case "HTTP PATCH":
			patch = s
		}
	}
	if reconcile == nil || patch == nil {
		t.Fatalf("spans: reconcile %v, patch %v", reconcile, patch)
	}
	if patch.parent != reconcile {
		t.Errorf("the PATCH span's parent is %v, want the reconcile span", patch.parent)
	}
	if reconcile.attr("kubego.reconcile.result") != "success" || reconcile.attr("kubego.request.name") != "web" || !reconcile.ended {
		t.Errorf("reconcile span: %+v", reconcile.attrs)
	}
	if patch.attr("http.response.status_code") != "200" || !patch.ended {
		t.Errorf("patch span: %+v", patch.attrs)
	}
}
