package manager

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// clientMetrics count the API requests of a Manager's client, by HTTP
// method and status code, with latency. Label values are bounded: the
// standard methods (else "other") and status codes 100-599 (else "other",
// or "<error>" when no response came back).
type clientMetrics struct {
	requests *prometheus.CounterVec   // method, code
	latency  *prometheus.HistogramVec // verb
	// series caches the resolved series per method and code, so that a
	// request looks no label values up: requestSeries by seriesKey.
	series sync.Map
}

type seriesKey struct {
	method string
	code   int // the status code; 0: no response
}

type requestSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// seriesFor returns the series of a request with method (already bounded)
// and status code (0: no response).
func (m *clientMetrics) seriesFor(method string, code int) *requestSeries {
	k := seriesKey{method, code}
	if s, ok := m.series.Load(k); ok {
		return s.(*requestSeries)
	}
	label := "<error>"
	if code != 0 {
		label = boundedCode(code)
	}
	s, _ := m.series.LoadOrStore(k, &requestSeries{
		requests: m.requests.WithLabelValues(method, label),
		latency:  m.latency.WithLabelValues(method),
	})
	return s.(*requestSeries)
}

func newClientMetrics(reg prometheus.Registerer) (*clientMetrics, error) {
	m := &clientMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rest_client_requests_total",
			Help: "API server requests by HTTP method and status code (\"<error>\" when no response came back).",
		}, []string{"method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rest_client_request_duration_seconds",
			Help:    "Time from sending a request to receiving its response headers, by HTTP method.",
			Buckets: []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60},
		}, []string{"verb"}),
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	return m, nil
}

// wrap returns a round-tripper that records each request on m.
func (m *clientMetrics) wrap(next http.RoundTripper) http.RoundTripper {
	return &instrumented{next: next, m: m}
}

type instrumented struct {
	next http.RoundTripper
	m    *clientMetrics
}

func (t *instrumented) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := 0
	if err == nil {
		code = resp.StatusCode
		if code < 100 || code > 599 {
			code = -1 // "other": one series for all out-of-range codes
		}
	}
	s := t.m.seriesFor(boundedMethod(req.Method), code)
	s.requests.Inc()
	s.latency.Observe(time.Since(start).Seconds())
	return resp, err
}

func boundedMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodHead, http.MethodOptions:
		return m
	}
	return "other"
}

func boundedCode(c int) string {
	if c < 100 || c > 599 {
		return "other"
	}
	return strconv.Itoa(c)
}

// register registers c on reg, or returns the collector already registered
// under the same description (by another Manager sharing the registry).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}
