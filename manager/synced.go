package manager

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/controller"
)

// The sync state of the controllers' informers is served twice: as the
// "informers" check of /readyz and as the kubego_informer_synced gauge.

// controllerList returns the controllers added so far.
func (m *Manager) controllerList() []*controller.Controller {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.controllers)
}

// syncState returns nil when the informers of every controller have
// synced, else an error naming those that have not.
func (m *Manager) syncState() error {
	var pending []string
	for _, c := range m.controllerList() {
		for name, synced := range c.SyncStates() {
			if !synced && !slices.Contains(pending, name) {
				pending = append(pending, name)
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("informers not synced: %s", strings.Join(pending, ", "))
	}
	return nil
}

// syncCollector exports the sync state of the controllers' informers, one
// series per informer.
type syncCollector struct{ m *Manager }

var syncDesc = prometheus.NewDesc("kubego_informer_synced",
	"1 when the informer has synced its cache, else 0.", []string{"informer"}, nil)

func (c *syncCollector) Describe(ch chan<- *prometheus.Desc) { ch <- syncDesc }

func (c *syncCollector) Collect(ch chan<- prometheus.Metric) {
	seen := map[string]bool{}
	for _, ctl := range c.m.controllerList() {
		for name, synced := range ctl.SyncStates() {
			if seen[name] {
				continue
			}
			seen[name] = true
			v := 0.0
			if synced {
				v = 1
			}
			if metric, err := prometheus.NewConstMetric(syncDesc, prometheus.GaugeValue, v, name); err == nil {
				ch <- metric
			}
		}
	}
}
