package sharding

import (
	"github.com/prometheus/client_golang/prometheus"
)

// sharderMetrics are the Sharder's series; nil when no Registerer was
// given.
type sharderMetrics struct {
	assignments   prometheus.Counter
	reassignments *prometheus.CounterVec
	drainDuration prometheus.Histogram
	members       prometheus.Gauge
}

func newSharderMetrics(reg prometheus.Registerer, ring string, objects prometheus.Collector) (*sharderMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	labels := prometheus.Labels{"ring": ring}
	m := &sharderMetrics{
		assignments: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kubego_sharding_assignments_total", ConstLabels: labels,
			Help: "Shard labels the sharder set on unassigned objects (new ones, and drained ones after their acknowledgement).",
		}),
		reassignments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubego_sharding_reassignments_total", ConstLabels: labels,
			Help: "Objects the sharder took from their member: cause=drain (a live member, asked to let go) or cause=member_gone (moved at once).",
		}, []string{"cause"}),
		drainDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kubego_sharding_drain_duration_seconds", ConstLabels: labels,
			Help:    "Time from marking an object for drain to assigning it to its new member.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}),
		members: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubego_sharding_members", ConstLabels: labels,
			Help: "Live members on the ring, as this sharder sees them (0 when not leading).",
		}),
	}
	for _, c := range []prometheus.Collector{m.assignments, m.reassignments, m.drainDuration, m.members, objects} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// objectsCollector reports kubego_sharding_objects{ring,shard}: the
// sharded objects per shard label value ("" for unassigned), counted from
// the leading sharder's caches at each scrape.
type objectsCollector struct {
	s    *Sharder
	desc *prometheus.Desc
}

func newObjectsCollector(s *Sharder) *objectsCollector {
	return &objectsCollector{s: s, desc: prometheus.NewDesc("kubego_sharding_objects",
		"Sharded objects per member (shard=\"\": unassigned), from the leading sharder's cache.",
		[]string{"shard"}, prometheus.Labels{"ring": s.opts.Ring})}
}

func (c *objectsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *objectsCollector) Collect(ch chan<- prometheus.Metric) {
	for shard, n := range c.s.Counts() {
		if m, err := prometheus.NewConstMetric(c.desc, prometheus.GaugeValue, float64(n), shard); err == nil {
			ch <- m
		}
	}
}
