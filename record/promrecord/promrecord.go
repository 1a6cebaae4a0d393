package promrecord

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/record"
)

// Options configure New. The zero Options make an unregistered Metrics.
type Options struct {
	// Registerer receives the Metrics. Nil leaves registration to the
	// caller: a Metrics is a prometheus.Collector.
	Registerer prometheus.Registerer
	// ConstLabels are added to every series, to tell recorders apart on
	// one registry. Nil means none.
	ConstLabels prometheus.Labels
}

// Metrics implements record.Metrics with Prometheus counters, and is itself
// a prometheus.Collector of them. It is safe for concurrent use.
type Metrics struct {
	dropped *prometheus.CounterVec
	writes  *prometheus.CounterVec
}

var _ record.Metrics = (*Metrics)(nil)

// New returns a Metrics, registered on opts.Registerer if it is not nil. A
// registration error is returned wrapped.
func New(opts Options) (*Metrics, error) {
	m := &Metrics{
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "event_recorder_dropped_total", Help: "Event occurrences not recorded, by reason.", ConstLabels: opts.ConstLabels,
		}, []string{"reason"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "event_recorder_writes_total", Help: "Event writes to the API server, by result.", ConstLabels: opts.ConstLabels,
		}, []string{"result"}),
	}
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(m); err != nil {
			return nil, fmt.Errorf("promrecord: register: %w", err)
		}
	}
	return m, nil
}

// Dropped implements record.Metrics.
func (m *Metrics) Dropped(reason record.DropReason) { m.dropped.WithLabelValues(string(reason)).Inc() }

// Wrote implements record.Metrics.
func (m *Metrics) Wrote(err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	m.writes.WithLabelValues(result).Inc()
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.dropped.Describe(ch)
	m.writes.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.dropped.Collect(ch)
	m.writes.Collect(ch)
}
