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
// of the span in the request's context (a reconcile's, typically), and
// sending that span to kube-apiserver in a W3C traceparent header (and
// tracestate, when the span has one), so the server's own spans of the
// request (kube-apiserver traces with its APIServerTracing feature) join
// the same trace. A request that carries a traceparent already keeps it.
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
	req = req.WithContext(ctx)
	if sc := span.SpanContext(); sc.IsValid() && req.Header.Get(headerTraceparent) == "" {
		req.Header = req.Header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set(headerTraceparent, traceparent(sc))
		if ts := sc.TraceState().String(); ts != "" {
			req.Header.Set(headerTracestate, ts)
		}
	}
	resp, err := t.next.RoundTrip(req)
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

// The W3C Trace Context headers.
const (
	headerTraceparent = "traceparent"
	headerTracestate  = "tracestate"
)

// traceparent is sc in the W3C traceparent format, version 00:
// version-traceid-spanid-flags, in lower-case hex.
func traceparent(sc trace.SpanContext) string {
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}
