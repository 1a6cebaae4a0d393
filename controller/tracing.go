package controller

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of kubego's spans.
const tracerName = "github.com/kubego/kubego/controller"

// startReconcileSpan starts the span of one reconcile, when tracing is on
// (t not nil). The span is the parent of the client requests made with
// the returned context.
func startReconcileSpan(ctx context.Context, t trace.Tracer, controller string, req Request) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	return t.Start(ctx, "Reconcile "+controller, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("kubego.controller", controller),
		attribute.String("k8s.namespace.name", req.Namespace),
		attribute.String("kubego.request.name", req.Name),
	))
}

// endReconcileSpan records the outcome on span and ends it.
func endReconcileSpan(span trace.Span, result string, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String("kubego.reconcile.result", result))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, result)
	}
	span.End()
}

// traced is a round-tripper making one client span per API request, child
// of the span in the request's context (a reconcile's, typically).
type traced struct {
	next   http.RoundTripper
	tracer trace.Tracer
}

func (t *traced) RoundTrip(req *http.Request) (*http.Response, error) {
	method := boundedMethod(req.Method)
	ctx, span := t.tracer.Start(req.Context(), "HTTP "+method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", method),
		attribute.String("url.path", req.URL.Path),
	))
	defer span.End()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "transport error")
		return resp, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	return resp, nil
}
