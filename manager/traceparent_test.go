package manager

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// traceparentTracer starts spans whose context is sc.
type traceparentTracer struct {
	embedded.Tracer
	sc trace.SpanContext
}

func (t traceparentTracer) Start(ctx context.Context, _ string, _ ...trace.SpanStartOption) (context.Context, trace.Span) {
	s := traceparentSpan{sc: t.sc}
	return trace.ContextWithSpan(ctx, s), s
}

type traceparentSpan struct {
	noop.Span
	sc trace.SpanContext
}

func (s traceparentSpan) SpanContext() trace.SpanContext { return s.sc }

func TestTracedSendsTraceparent(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ts, _ := trace.ParseTraceState("vendor=value")
	sampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts})
	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid})
	for _, tt := range []struct {
		name                string
		sc                  trace.SpanContext
		header              http.Header
		wantParent, wantSta string
	}{
		{"a sampled span with a trace state", sampled, nil, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=value"},
		{"an unsampled span", unsampled, http.Header{}, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", ""},
		{"no valid span", trace.SpanContext{}, http.Header{}, "", ""},
		{"a traceparent already set is kept", sampled, http.Header{"Traceparent": {"00-aa-bb-01"}}, "00-aa-bb-01", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got http.Header
			rt := &traced{tracer: traceparentTracer{sc: tt.sc}, next: captureRT(func(req *http.Request) (*http.Response, error) {
				got = req.Header
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
			})}
			req, _ := http.NewRequest(http.MethodGet, "http://api.example/api", nil)
			req.Header = tt.header
			before := tt.header.Clone()
			if _, err := rt.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if p, s := got.Get("traceparent"), got.Get("tracestate"); p != tt.wantParent || s != tt.wantSta {
				t.Errorf("traceparent %q tracestate %q, want %q %q", p, s, tt.wantParent, tt.wantSta)
			}
			if len(req.Header) != len(before) {
				t.Errorf("the caller's request headers were changed: %v", req.Header)
			}
		})
	}
}

type captureRT func(*http.Request) (*http.Response, error)

func (f captureRT) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
