package promqueue

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/workqueue"
)

// Options configure New. The zero Options make an unregistered Metrics for
// a queue with an empty name.
type Options struct {
	// Registerer receives the Metrics. Nil leaves registration to the
	// caller: a Metrics is a prometheus.Collector.
	Registerer prometheus.Registerer
	// Name is the value of the "name" label, which tells queues apart on
	// one registry.
	Name string
	// Controller, if set, is the value of a "controller" label, which
	// controller-runtime's dashboards select by; a controller's queue
	// sets it to the controller's name.
	Controller string
	// Buckets are the upper bounds, in seconds, of the queue-duration and
	// work-duration histograms. Nil means 1µs, 10µs, … up to 1000s.
	Buckets []float64
}

// Metrics implements workqueue.Metrics with Prometheus collectors, and is
// itself a prometheus.Collector of them. It is safe for concurrent use and
// serves one queue.
type Metrics struct {
	depth        prometheus.Gauge
	adds         prometheus.Counter
	latency      prometheus.Histogram
	workDuration prometheus.Histogram
	unfinished   prometheus.GaugeFunc
	longest      prometheus.GaugeFunc
	retries      prometheus.Counter

	inFlight atomic.Pointer[func() workqueue.InFlight]
}

var _ workqueue.Metrics = (*Metrics)(nil)

// New returns a Metrics, registered on opts.Registerer if it is not nil.
// Registration errors (such as a second queue with the same name on one
// registry) are returned as the Registerer reports them, wrapped.
func New(opts Options) (*Metrics, error) {
	buckets := opts.Buckets
	if buckets == nil {
		buckets = prometheus.ExponentialBuckets(1e-6, 10, 10)
	}
	labels := prometheus.Labels{"name": opts.Name}
	if opts.Controller != "" {
		labels["controller"] = opts.Controller
	}
	m := &Metrics{}
	m.depth = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "workqueue_depth", Help: "Current number of keys waiting for a worker.", ConstLabels: labels,
	})
	m.adds = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "workqueue_adds_total", Help: "Total number of keys added, not counting deduplicated adds.", ConstLabels: labels,
	})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "workqueue_queue_duration_seconds", Help: "How long a key waits in the queue before a worker takes it.",
		ConstLabels: labels, Buckets: buckets,
	})
	m.workDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "workqueue_work_duration_seconds", Help: "How long a worker holds a key, from Get to Done.",
		ConstLabels: labels, Buckets: buckets,
	})
	m.unfinished = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "workqueue_unfinished_work_seconds",
		Help:        "Sum of the time keys held by workers and not yet Done have been held so far; a large and growing value suggests stuck workers.",
		ConstLabels: labels,
	}, func() float64 { return m.read().Total.Seconds() })
	m.longest = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "workqueue_longest_running_processor_seconds", Help: "How long the longest-held key not yet Done has been held.",
		ConstLabels: labels,
	}, func() float64 { return m.read().Longest.Seconds() })
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "workqueue_retries_total", Help: "Total number of delayed and rate-limited adds.", ConstLabels: labels,
	})
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(m); err != nil {
			return nil, fmt.Errorf("promqueue: register metrics of queue %q: %w", opts.Name, err)
		}
	}
	return m, nil
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.depth, m.adds, m.latency, m.workDuration, m.unfinished, m.longest, m.retries}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func (m *Metrics) read() workqueue.InFlight {
	if f := m.inFlight.Load(); f != nil {
		return (*f)()
	}
	return workqueue.InFlight{}
}

// Added implements workqueue.Metrics.
func (m *Metrics) Added() { m.adds.Inc() }

// Depth implements workqueue.Metrics.
func (m *Metrics) Depth(n int) { m.depth.Set(float64(n)) }

// Started implements workqueue.Metrics.
func (m *Metrics) Started(waited time.Duration) { m.latency.Observe(waited.Seconds()) }

// Finished implements workqueue.Metrics.
func (m *Metrics) Finished(worked time.Duration) { m.workDuration.Observe(worked.Seconds()) }

// Retried implements workqueue.Metrics.
func (m *Metrics) Retried() { m.retries.Inc() }

// Attach implements workqueue.Metrics.
func (m *Metrics) Attach(inFlight func() workqueue.InFlight) { m.inFlight.Store(&inFlight) }
