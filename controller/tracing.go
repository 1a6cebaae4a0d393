package controller

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the reconcile spans.
const tracerName = "github.com/kubego/kubego/controller"

// startReconcileSpan starts the span of one reconcile, when tracing is on
// (t not nil). The span is the parent of the client requests made with
// the returned context.
func startReconcileSpan(ctx context.Context, t trace.Tracer, controller string, req Request) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String("kubego.controller", controller),
		attribute.String("k8s.namespace.name", req.Namespace),
		attribute.String("kubego.request.name", req.Name),
	}
	if req.Cluster != "" {
		attrs = append(attrs, attribute.String("k8s.cluster.name", req.Cluster))
	}
	return t.Start(ctx, "Reconcile "+controller, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
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
