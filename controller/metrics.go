package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// reconcileMetrics are the reconcile series, shared by every controller
// registered on one Registerer (the "controller" label tells them apart).
// The names are controller-runtime's, so its dashboards work.
type reconcileMetrics struct {
	total         *prometheus.CounterVec   // controller, result
	errors        *prometheus.CounterVec   // controller
	terminal      *prometheus.CounterVec   // controller
	panics        *prometheus.CounterVec   // controller
	duration      *prometheus.HistogramVec // controller
	activeWorkers *prometheus.GaugeVec     // controller
	maxWorkers    *prometheus.GaugeVec     // controller
}

func newReconcileMetrics(reg prometheus.Registerer) (*reconcileMetrics, error) {
	m := &reconcileMetrics{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_total",
			Help: "Reconciles per controller and result (success, error, terminal_error, requeue, requeue_after).",
		}, []string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_errors_total",
			Help: "Reconciles that returned an error (terminal ones and recovered panics included).",
		}, []string{"controller"}),
		terminal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_terminal_reconcile_errors_total",
			Help: "Reconciles that returned a terminal error (not retried).",
		}, []string{"controller"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_panics_total",
			Help: "Panics recovered in Reconcile.",
		}, []string{"controller"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "controller_runtime_reconcile_time_seconds",
			Help:    "Duration of Reconcile calls.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"controller"}),
		activeWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_active_workers",
			Help: "Workers running a Reconcile now.",
		}, []string{"controller"}),
		maxWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_max_concurrent_reconciles",
			Help: "Workers of the controller.",
		}, []string{"controller"}),
	}
	var err error
	m.total, err = register(reg, m.total)
	if err == nil {
		m.errors, err = register(reg, m.errors)
	}
	if err == nil {
		m.terminal, err = register(reg, m.terminal)
	}
	if err == nil {
		m.panics, err = register(reg, m.panics)
	}
	if err == nil {
		m.duration, err = register(reg, m.duration)
	}
	if err == nil {
		m.activeWorkers, err = register(reg, m.activeWorkers)
	}
	if err == nil {
		m.maxWorkers, err = register(reg, m.maxWorkers)
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile metrics: %w", err)
	}
	return m, nil
}

// register registers c on reg, or returns the collector already registered
// under the same description (another controller on the same registry).
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

// boundMetrics are one controller's series of reconcileMetrics, resolved
// once so that a reconcile looks no label values up. Every result's
// counter exists (at zero) from the start, as in controller-runtime.
type boundMetrics struct {
	results  map[string]prometheus.Counter
	errors   prometheus.Counter
	terminal prometheus.Counter
	panics   prometheus.Counter
	duration prometheus.Observer
	active   prometheus.Gauge
}

func (m *reconcileMetrics) bind(controller string) *boundMetrics {
	b := &boundMetrics{
		results:  make(map[string]prometheus.Counter, 5),
		errors:   m.errors.WithLabelValues(controller),
		terminal: m.terminal.WithLabelValues(controller),
		panics:   m.panics.WithLabelValues(controller),
		duration: m.duration.WithLabelValues(controller),
		active:   m.activeWorkers.WithLabelValues(controller),
	}
	// The values of the "result" label (see Controller.process).
	for _, r := range []string{"success", "error", "terminal_error", "requeue", "requeue_after"} {
		b.results[r] = m.total.WithLabelValues(controller, r)
	}
	return b
}

func (b *boundMetrics) observe(result string, err error, d time.Duration) {
	b.results[result].Inc()
	if err != nil {
		b.errors.Inc()
		if result == "terminal_error" {
			b.terminal.Inc()
		}
	}
	b.duration.Observe(d.Seconds())
}
