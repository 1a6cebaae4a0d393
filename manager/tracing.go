package manager

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the client request spans.
const tracerName = "github.com/kubego/kubego/manager"

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
