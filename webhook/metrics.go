package webhook

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the series of a Server's handlers, labelled by the path
// they were registered at (webhook), named as controller-runtime names
// them so that existing dashboards and alerts work.
type metrics struct {
	requests *prometheus.CounterVec   // controller_runtime_webhook_requests_total{webhook,code}
	latency  *prometheus.HistogramVec // controller_runtime_webhook_latency_seconds{webhook}
	inFlight *prometheus.GaugeVec     // controller_runtime_webhook_requests_in_flight{webhook}
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_webhook_requests_total",
			Help: "Requests served by each webhook, by HTTP status code.",
		}, []string{"webhook", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "controller_runtime_webhook_latency_seconds",
			Help:    "Time each webhook took to answer a request.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
		}, []string{"webhook"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_webhook_requests_in_flight",
			Help: "Requests each webhook is answering now.",
		}, []string{"webhook"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.inFlight} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, fmt.Errorf("%w: the webhook metrics are registered already (two Servers on one Registerer)", ErrInvalidOptions)
			}
			return nil, fmt.Errorf("webhook: registering metrics: %w", err)
		}
	}
	return m, nil
}

// instrument wraps h with the series of path.
func (m *metrics) instrument(path string, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	labels := prometheus.Labels{"webhook": path}
	return promhttp.InstrumentHandlerInFlight(m.inFlight.With(labels),
		promhttp.InstrumentHandlerDuration(m.latency.MustCurryWith(labels),
			promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(labels), h)))
}
