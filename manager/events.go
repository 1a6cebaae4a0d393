package manager

import (
	"context"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/record/promrecord"
)

// recorders are the Manager's event recorders, by reporting controller.
type recorders struct {
	mu      sync.Mutex
	byName  map[string]*record.Recorder
	stopped bool // Start has shut them down
}

// EventRecorder returns the Manager's event recorder for the reporting
// controller name, creating it
// on the first call; later calls with the same name return the same
// Recorder. It writes events.k8s.io/v1 Events through the Manager's
// client, with Options.Events for everything but ReportingController, and
// counts its drops and writes in the Manager's registry
// (event_recorder_dropped_total and event_recorder_writes_total, labelled
// controller=name).
//
// The Manager owns the Recorder: do not Shutdown it. When Start stops, it
// shuts every recorder down after its runnables have returned, so that the
// Events recorded while controllers drain are still written, within what
// is left of GracefulShutdownTimeout; Start returns after that. A recorder
// first asked for once Start has stopped is returned already shut down,
// so its Eventf calls are dropped (record.DropShutdown). Recorders of a
// Manager that is never started keep their goroutine; Shutdown them
// yourself then.
//
// name is written in every Event's reportingController and must be what
// kube-apiserver accepts there: a label key, that is an optional DNS
// subdomain prefix and a slash, then a name of at most 63 characters of
// letters, digits, '-', '_' and '.' ("example.com/cronjob", or "cronjob").
// It returns record's *OptionsError (wrapping record.ErrInvalidOptions)
// for any other name, or an error registering the metrics. It is safe for concurrent use.
func (m *Manager) EventRecorder(name string) (*record.Recorder, error) {
	m.recs.mu.Lock()
	defer m.recs.mu.Unlock()
	if r, ok := m.recs.byName[name]; ok {
		return r, nil
	}
	opts := m.opts.Events
	opts.ReportingController = name
	if opts.ReportingController == "" {
		return nil, invalid("EventRecorder needs a name")
	}
	if opts.Logger == nil {
		opts.Logger = m.log
	}
	if opts.Kinds == nil {
		opts.Kinds = m.client
	}
	var metrics *promrecord.Metrics
	if opts.Metrics == nil {
		var err error
		metrics, err = promrecord.New(promrecord.Options{ConstLabels: prometheus.Labels{"controller": name}})
		if err != nil {
			return nil, err
		}
		opts.Metrics = metrics
	}
	r, err := record.New(record.NewSink(m.client), opts)
	if err != nil {
		return nil, err
	}
	if metrics != nil {
		if err := m.registry.Register(metrics); err != nil {
			_ = r.Shutdown(context.Background()) // nothing was recorded: returns at once
			return nil, fmt.Errorf("manager: event recorder %s metrics: %w", name, err)
		}
	}
	if m.recs.byName == nil {
		m.recs.byName = map[string]*record.Recorder{}
	}
	m.recs.byName[name] = r
	if m.recs.stopped {
		_ = r.Shutdown(context.Background())
	}
	return r, nil
}

// shutdownRecorders shuts every recorder down, writing what they hold
// until ctx ends, and makes later recorders start shut down. Events left
// unwritten are logged.
func (m *Manager) shutdownRecorders(ctx context.Context) {
	m.recs.mu.Lock()
	m.recs.stopped = true
	rs := make(map[string]*record.Recorder, len(m.recs.byName))
	for name, r := range m.recs.byName {
		rs[name] = r
	}
	m.recs.mu.Unlock()
	var wg sync.WaitGroup
	for name, r := range rs {
		wg.Go(func() {
			if err := r.Shutdown(ctx); err != nil {
				m.log.Warn("event recorder stopped with events unwritten", "recorder", name, "err", err)
			}
		})
	}
	wg.Wait()
}
