package manager

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// The sync state of the informers of the Manager's cache (its host
// cluster's factory: those of the controllers' sources and of the readers
// made on the Manager, but for lazy readers' until their first read) and
// of the controllers is served twice: as the "informers" check of /readyz
// and as the kubego_informer_synced gauge. Those of the other clusters a
// multi-cluster controller watches are only a gauge, kubego_cluster_synced:
// a cluster that cannot be reached must not make the process unready.

// syncStater is a runnable whose informers /readyz waits for, as a
// *controller.Controller's.
type syncStater interface {
	SyncStates() iter.Seq2[string, bool]
}

// syncStates yields each informer's name once, in the order first seen,
// with whether it has synced: an informer several controllers watch has
// synced when every one of them reports it synced (each includes its own
// handler's delivery of the initial objects).
func (m *Manager) syncStates() iter.Seq2[string, bool] {
	m.mu.Lock()
	ctls := slices.Clone(m.synced)
	m.mu.Unlock()
	return func(yield func(string, bool) bool) {
		var names []string
		state := map[string]bool{}
		each := func(name string, synced bool) {
			prev, seen := state[name]
			if !seen {
				names = append(names, name)
				prev = true
			}
			state[name] = prev && synced
		}
		for _, c := range ctls {
			for name, synced := range c.SyncStates() {
				each(name, synced)
			}
		}
		for name, synced := range m.factory.SyncStates() {
			each(name, synced)
		}
		for _, name := range names {
			if !yield(name, state[name]) {
				return
			}
		}
	}
}

// syncState returns nil when the informers of every controller and reader
// have synced, else an error naming those that have not.
func (m *Manager) syncState() error {
	var pending []string
	for name, synced := range m.syncStates() {
		if !synced {
			pending = append(pending, name)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("informers not synced: %s", strings.Join(pending, ", "))
	}
	return nil
}

// syncCollector exports the sync state of the informers, one series per
// informer.
type syncCollector struct{ m *Manager }

var syncDesc = prometheus.NewDesc("kubego_informer_synced",
	"1 when the informer has synced its cache, else 0.", []string{"informer"}, nil)

var clusterSyncDesc = prometheus.NewDesc("kubego_cluster_synced",
	"1 when a multi-cluster controller's informers of the cluster have synced, else 0; one series per engaged cluster.",
	[]string{"controller", "cluster"}, nil)

func (c *syncCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- syncDesc
	ch <- clusterSyncDesc
}

func (c *syncCollector) Collect(ch chan<- prometheus.Metric) {
	for name, synced := range c.m.syncStates() {
		v := 0.0
		if synced {
			v = 1
		}
		if metric, err := prometheus.NewConstMetric(syncDesc, prometheus.GaugeValue, v, name); err == nil {
			ch <- metric
		}
	}
	c.m.cmu.Lock()
	multi := slices.Clone(c.m.multi)
	c.m.cmu.Unlock()
	for _, ctl := range multi {
		for cluster, synced := range ctl.Clusters() {
			v := 0.0
			if synced {
				v = 1
			}
			if metric, err := prometheus.NewConstMetric(clusterSyncDesc, prometheus.GaugeValue, v, ctl.Name(), cluster); err == nil {
				ch <- metric
			}
		}
	}
}
