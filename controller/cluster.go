package controller

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// engagement is one cluster a MultiCluster controller watches: its copies
// of the sources, and a context that ends when it is disengaged.
type engagement struct {
	name    string
	sources []source
	ctx     context.Context
	cancel  context.CancelFunc
	started atomic.Bool
	synced  chan struct{} // closed when the sync watch returns (once started)
}

// binder returns the binder of sources on factory (nil: templates, only
// checked) with kinds.
func (c *Controller) binder(factory *informer.Factory, kinds client.KindResolver) *binder {
	return &binder{
		factory: factory,
		scheme:  c.opts.Scheme,
		forKind: func() (schema.GroupKind, error) {
			if c.forType == nil {
				return schema.GroupKind{}, fmt.Errorf("%w: Owns needs a For source or Owns.OwnerKind", ErrUnknownKind)
			}
			if !c.forGVR.Empty() {
				return resourceKind(kinds, c.forGVR)
			}
			return kindOf(kinds, c.opts.Scheme, c.forType)
		},
		kinds: kinds,
	}
}

// bindHost binds the sources of the host cluster on factory: Options.Sources
// themselves, or with MultiCluster copies of them (checking the templates
// first), plus the Channel sources.
func (c *Controller) bindHost(factory *informer.Factory) ([]source, error) {
	b := c.binder(factory, c.opts.Kinds)
	b.cold = c.opts.Standby == StandbyCold
	var bound []source
	fail := func(err error) ([]source, error) {
		for _, s := range bound {
			s.stop()
		}
		return nil, err
	}
	if !c.opts.MultiCluster {
		for _, s := range c.templates {
			if err := s.bind(b); err != nil {
				return fail(err)
			}
			bound = append(bound, s)
		}
		return bound, nil
	}
	tb := c.binder(nil, c.opts.Kinds)
	for _, s := range c.templates {
		cp := s.clone()
		if cp == nil { // not per cluster: runs once, on the host
			if err := s.bind(b); err != nil {
				return fail(err)
			}
			bound = append(bound, s)
			continue
		}
		if err := s.bind(tb); err != nil {
			return fail(err)
		}
		if c.opts.SkipHostCluster {
			continue
		}
		if err := cp.bind(b); err != nil {
			return fail(err)
		}
		bound = append(bound, cp)
	}
	return bound, nil
}

// Engage makes a MultiCluster controller watch its sources in the cluster
// name as well, through factory (that cluster's, which its owner starts
// and stops) and kinds (that cluster's client; nil means Options.Scheme
// alone): each source is copied and bound to factory now, and starts at
// once if the controller runs (else with Start). The workers do not wait
// for the cluster's caches: its Requests (Request.Cluster = name) are
// queued as its informers deliver them.
//
// It returns an error wrapping ErrInvalidOptions for a controller without
// MultiCluster, an empty name or a nil factory; ErrDuplicateCluster for a
// name engaged already; ErrStopped once Start has returned; or a source's
// bind error (as New's: ErrUnknownKind, *informer.OptionsConflictError).
// It is safe for concurrent use.
func (c *Controller) Engage(name string, factory *informer.Factory, kinds client.KindResolver) error {
	switch {
	case !c.opts.MultiCluster:
		return fmt.Errorf("controller %s: Engage: %w", c.name, invalid("not a MultiCluster controller"))
	case name == "":
		return fmt.Errorf("controller %s: Engage: %w", c.name, invalid("empty cluster name"))
	case factory == nil:
		return fmt.Errorf("controller %s: Engage: %w", c.name, invalid("nil informer factory"))
	}
	c.mu.Lock()
	_, dup := c.clusters[name]
	ended := c.ended
	c.mu.Unlock()
	if ended {
		return fmt.Errorf("controller %s: Engage %q: %w", c.name, name, ErrStopped)
	}
	if dup {
		return fmt.Errorf("controller %s: Engage %q: %w", c.name, name, ErrDuplicateCluster)
	}
	b := c.binder(factory, kinds)
	e := &engagement{name: name, synced: make(chan struct{})}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	for _, s := range c.templates {
		cp := s.clone()
		if cp == nil {
			continue
		}
		if err := cp.bind(b); err != nil {
			e.stop()
			return fmt.Errorf("controller %s: cluster %q: %w", c.name, name, err)
		}
		e.sources = append(e.sources, cp)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	_, dup = c.clusters[name]
	if dup || c.ended {
		e.stop() // never started: releases only
		if dup {
			return fmt.Errorf("controller %s: Engage %q: %w", c.name, name, ErrDuplicateCluster)
		}
		return fmt.Errorf("controller %s: Engage %q: %w", c.name, name, ErrStopped)
	}
	c.clusters[name] = e
	if c.run != nil {
		c.startCluster(e, *c.run)
	}
	return nil
}

// Disengage stops watching the cluster name: its sources stop and release
// their informers, a reconcile of it in flight has its context cancelled
// (and is not retried), and its Requests still queued are dropped without
// a reconcile: those waiting for a worker at once (unless Options.Lane
// lanes Requests by something else than the cluster), those waiting out a
// retry delay when a worker takes them. It returns once the cluster's
// sources have stopped, or an error wrapping ErrUnknownCluster when name
// is not engaged (never was, already disengaged, or the controller has
// stopped, which disengages every cluster).
func (c *Controller) Disengage(name string) error {
	c.mu.Lock()
	e := c.clusters[name]
	delete(c.clusters, name)
	c.mu.Unlock()
	if e == nil {
		return fmt.Errorf("controller %s: Disengage %q: %w", c.name, name, ErrUnknownCluster)
	}
	e.stop()
	dropped := 0
	if c.opts.Lane == nil {
		// Lanes are clusters: its waiting Requests go now. Others (held,
		// or waiting out a retry delay) are dropped when a worker takes
		// them.
		dropped = c.queue.DropLane(name)
	}
	c.log.Info("cluster disengaged", "cluster", name, "dropped", dropped)
	return nil
}

// Clusters yields the engaged clusters in name order, each with whether
// its sources' informers have synced now. Safe for concurrent use.
func (c *Controller) Clusters() iter.Seq2[string, bool] {
	c.mu.Lock()
	es := slices.Collect(maps.Values(c.clusters))
	c.mu.Unlock()
	slices.SortFunc(es, func(a, b *engagement) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return func(yield func(string, bool) bool) {
		for _, e := range es {
			if !yield(e.name, e.hasSynced()) {
				return
			}
		}
	}
}

// MultiCluster reports whether the controller watches the clusters it is
// engaged with (Options.MultiCluster).
func (c *Controller) MultiCluster() bool { return c.opts.MultiCluster }

// clusterContext returns the context of the engaged cluster name, or nil.
func (c *Controller) clusterContext(name string) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.clusters[name]; e != nil {
		return e.ctx
	}
	return nil
}

// startClusters starts the sources of the clusters engaged so far, and
// makes Engage start later ones, with q.
func (c *Controller) startClusters(q enqueuer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run = &q
	for _, e := range c.clusters {
		c.startCluster(e, q)
	}
}

// startCluster registers e's handlers and watches its sync, in the
// background. Called with c.mu held.
func (c *Controller) startCluster(e *engagement, q enqueuer) {
	e.started.Store(true)
	cq := q.forCluster(e.name)
	for _, s := range e.sources {
		if err := s.start(cq); err != nil {
			// The cluster's informer stopped already (its cluster is
			// being removed): the others keep running.
			c.log.Warn("cluster source not started", "cluster", e.name, "source", s.String(), "err", err)
		}
	}
	go func() {
		defer close(e.synced)
		sctx, cancel := context.WithTimeout(e.ctx, c.opts.CacheSyncTimeout)
		defer cancel()
		var errs []error
		for _, s := range e.sources {
			if err := s.waitForSync(sctx); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s, err))
			}
		}
		switch {
		case e.ctx.Err() != nil:
		case len(errs) > 0:
			c.log.Warn("cluster's caches not synced in time; they keep retrying and its Requests come once they sync",
				"cluster", e.name, "err", errors.Join(errs...))
		default:
			c.log.Info("cluster's caches synced", "cluster", e.name)
		}
	}()
}

// stopClusters disengages every cluster once Start ends.
func (c *Controller) stopClusters() {
	c.mu.Lock()
	es := c.clusters
	c.clusters = map[string]*engagement{}
	c.run = nil
	c.ended = true
	c.mu.Unlock()
	for _, e := range es {
		e.stop()
	}
}

// stop ends e: its sync watch and its sources.
func (e *engagement) stop() {
	e.cancel()
	if e.started.Load() {
		<-e.synced
	}
	for _, s := range e.sources {
		s.stop()
	}
}

func (e *engagement) hasSynced() bool {
	for _, s := range e.sources {
		if !s.hasSynced() {
			return false
		}
	}
	return true
}

// resourceKind returns the group/kind served as gvr, the For resource of a
// ForMetadata source, from kinds when it maps resources.
func resourceKind(kinds client.KindResolver, gvr schema.GroupVersionResource) (schema.GroupKind, error) {
	rk, ok := kinds.(client.ResourceKindResolver)
	if !ok {
		return schema.GroupKind{}, fmt.Errorf("%w: the For source is ForMetadata(%s) and Options.Kinds cannot map resources; set Owns.OwnerKind", ErrUnknownKind, gvr)
	}
	gvk, err := rk.KindForResource(gvr)
	if err != nil {
		return schema.GroupKind{}, fmt.Errorf("%w: %w; set Owns.OwnerKind", ErrUnknownKind, err)
	}
	return gvk.GroupKind(), nil
}
