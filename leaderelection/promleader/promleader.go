package promleader

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/leaderelection"
)

// Options configure New. The zero Options make an unregistered Metrics.
type Options struct {
	// Registerer receives the Metrics. Nil leaves registration to the
	// caller: a Metrics is a prometheus.Collector.
	Registerer prometheus.Registerer
}

// Metrics implements leaderelection.Metrics with a gauge vector, and is
// itself a prometheus.Collector of it. It is safe for concurrent use.
type Metrics struct {
	status *prometheus.GaugeVec
}

var _ leaderelection.Metrics = (*Metrics)(nil)

// New returns a Metrics, registered on opts.Registerer if it is not nil.
// A registration error (such as a second Metrics on one registry) is
// returned wrapped.
func New(opts Options) (*Metrics, error) {
	m := &Metrics{status: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "1 while this process leads the lease called name, 0 otherwise.",
	}, []string{"name"})}
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(m); err != nil {
			return nil, fmt.Errorf("promleader: register: %w", err)
		}
	}
	return m, nil
}

// SetLeading sets the gauge of lease to 1 or 0. Leases are told apart by
// name only, as in client-go.
func (m *Metrics) SetLeading(lease types.NamespacedName, leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	m.status.WithLabelValues(lease.Name).Set(v)
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) { m.status.Describe(ch) }

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) { m.status.Collect(ch) }
