package manager

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// A Manager holds, besides its own (host) cluster, any number of other
// clusters, added and removed while it runs: by hand (AddCluster,
// ReplaceCluster, RemoveCluster) or by providers (AddProvider). Each has
// its own client, informer factory and lifecycle (a *fleet.Cluster); the
// controllers made with controller.Options.MultiCluster watch their
// sources in each of them. Manager implements fleet.Set.

var _ fleet.Set = (*Manager)(nil)

// Cluster returns the cluster held under name; "" is the host cluster
// (the one of Client and Factory). It returns an *fleet.Error wrapping
// fleet.ErrUnknown for a name not held (never added, or removed). A
// reconciler finds the client and reader of its Request's cluster with
// it:
//
//	cl, err := mgr.Cluster(req.Cluster)
//	if err != nil {
//		return controller.Result{}, controller.TerminalError(err)
//	}
//	cms, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{})
func (m *Manager) Cluster(name string) (*fleet.Cluster, error) {
	if name == "" {
		return m.host, nil
	}
	m.cmu.Lock()
	defer m.cmu.Unlock()
	if cl := m.clusters[name]; cl != nil {
		return cl, nil
	}
	return nil, &fleet.Error{Cluster: name, Err: fleet.ErrUnknown}
}

// ClusterNames returns the names of the clusters held besides the host, in
// order.
func (m *Manager) ClusterNames() []string {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	return slices.Sorted(maps.Keys(m.clusters))
}

// AddCluster builds a cluster named name from cfg (see fleet.New: the
// Manager's client options, informer options and logger; its client's
// requests counted in the Manager's client metrics and traced with its
// TracerProvider), starts it if the Manager runs (else with Start), and
// engages every MultiCluster controller with it. It does not wait for the
// cluster's caches, nor for the cluster to answer: an unreachable cluster
// only keeps its own informers retrying.
//
// It returns an *fleet.Error wrapping fleet.ErrInvalid for an empty name,
// fleet.ErrDuplicate for a name held already; the rest client's
// *rest.ConfigError; a controller's Engage error (the cluster is then not
// added); or an error wrapping ErrStopped once the Manager has stopped.
func (m *Manager) AddCluster(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	if name == "" {
		return nil, &fleet.Error{Cluster: name, Err: fmt.Errorf("%w: empty name (the host cluster's)", fleet.ErrInvalid)}
	}
	m.cops.Lock()
	defer m.cops.Unlock()
	return m.addClusterLocked(name, cfg)
}

func (m *Manager) addClusterLocked(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	m.cmu.Lock()
	_, dup := m.clusters[name]
	done := m.clustersDone
	m.cmu.Unlock()
	switch {
	case done:
		return nil, fmt.Errorf("manager: AddCluster %q: %w", name, ErrStopped)
	case dup:
		return nil, &fleet.Error{Cluster: name, Err: fleet.ErrDuplicate}
	}
	cl, err := m.newCluster(name, cfg)
	if err != nil {
		return nil, err
	}
	var engaged []*controller.Controller
	for _, c := range m.multi {
		err := c.Engage(name, cl.Factory(), cl.Client())
		switch {
		case err == nil:
			engaged = append(engaged, c)
		case errors.Is(err, controller.ErrStopped):
		default:
			for _, e := range engaged {
				_ = e.Disengage(name)
			}
			_ = cl.Stop()
			return nil, err
		}
	}
	m.cmu.Lock()
	m.clusters[name] = cl
	ctx := m.clusterCtx
	m.cmu.Unlock()
	if ctx != nil {
		_ = cl.Start(ctx) // new: cannot be stopped yet
	}
	m.log.Info("cluster added", "cluster", name)
	return cl, nil
}

// newCluster builds the cluster of name from a copy of cfg, with the
// Manager's options and client instrumentation.
func (m *Manager) newCluster(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	if cfg == nil {
		return nil, &fleet.Error{Cluster: name, Err: fmt.Errorf("%w: nil rest.Config", fleet.ErrInvalid)}
	}
	c := *cfg
	userWrap := c.WrapTransport
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if userWrap != nil {
			rt = userWrap(rt)
		}
		return m.wrap(rt)
	}
	return fleet.New(name, &c, fleet.Options{Client: m.opts.Client, Informers: m.opts.Informers, Declarations: m.declarations(), Logger: m.log})
}

// ReplaceCluster puts a cluster built from cfg in the place of the one
// held under name, if any: the old one is removed (see RemoveCluster),
// then the new one added (see AddCluster), under one lock, so that no
// other change of the clusters comes between. The old cluster's
// reconcile in flight is cancelled and its Requests waiting for a worker
// are dropped (controller.Controller.Disengage); the few waiting out a
// retry delay name the same cluster and so are reconciled against the
// new one, whose informers list everything again anyway. It returns
// AddCluster's errors.
func (m *Manager) ReplaceCluster(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	if name == "" {
		return nil, &fleet.Error{Cluster: name, Err: fmt.Errorf("%w: empty name (the host cluster's)", fleet.ErrInvalid)}
	}
	m.cops.Lock()
	defer m.cops.Unlock()
	if err := m.removeClusterLocked(name); err != nil && !errors.Is(err, fleet.ErrUnknown) {
		return nil, err
	}
	return m.addClusterLocked(name, cfg)
}

// RemoveCluster removes the cluster held under name: every MultiCluster
// controller disengages from it (its sources stop; its queued Requests
// are dropped, and a reconcile of it in flight is cancelled), then the
// cluster stops (see fleet.Cluster.Stop: informers stopped and waited
// for, readers released, idle connections closed). The *fleet.Cluster
// values handed out before then fail their cache reads with
// fleet.ErrRemoved. It returns an *fleet.Error wrapping fleet.ErrUnknown
// for a name not held, or the cluster's Stop error.
func (m *Manager) RemoveCluster(name string) error {
	m.cops.Lock()
	defer m.cops.Unlock()
	return m.removeClusterLocked(name)
}

func (m *Manager) removeClusterLocked(name string) error {
	m.cmu.Lock()
	cl := m.clusters[name]
	delete(m.clusters, name)
	m.cmu.Unlock()
	if cl == nil {
		return &fleet.Error{Cluster: name, Err: fleet.ErrUnknown}
	}
	for _, c := range m.multi {
		_ = c.Disengage(name) // ErrUnknownCluster: the controller has stopped
	}
	err := cl.Stop()
	m.log.Info("cluster removed", "cluster", name)
	return err
}

// engageAll engages c (a new MultiCluster controller) with every cluster
// held, and with those added later.
func (m *Manager) engageAll(c *controller.Controller) error {
	m.cops.Lock()
	defer m.cops.Unlock()
	m.cmu.Lock()
	cls := slices.Collect(maps.Values(m.clusters))
	m.cmu.Unlock()
	for i, cl := range cls {
		if err := c.Engage(cl.Name(), cl.Factory(), cl.Client()); err != nil {
			for _, done := range cls[:i] {
				_ = c.Disengage(done.Name())
			}
			return err
		}
	}
	m.cmu.Lock()
	m.multi = append(m.multi, c)
	m.cmu.Unlock()
	return nil
}

// startClusters starts the clusters held, and makes AddCluster start later
// ones, under ctx.
func (m *Manager) startClusters(ctx context.Context) {
	m.cops.Lock()
	defer m.cops.Unlock()
	m.cmu.Lock()
	m.clusterCtx = ctx
	cls := slices.Collect(maps.Values(m.clusters))
	m.cmu.Unlock()
	for _, cl := range cls {
		_ = cl.Start(ctx)
	}
}

// stopClusters stops every cluster held, at once, and refuses new ones.
func (m *Manager) stopClusters() error {
	m.cops.Lock()
	defer m.cops.Unlock()
	m.cmu.Lock()
	m.clustersDone = true
	cls := slices.Collect(maps.Values(m.clusters))
	m.cmu.Unlock()
	errs := make([]error, len(cls))
	var wg sync.WaitGroup
	for i, cl := range cls {
		wg.Go(func() { errs[i] = cl.Stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// AddProvider runs p as a runnable of the Manager, on every replica (it
// needs no leadership): p adds clusters to the Manager and removes them
// until the Manager stops; an error it returns stops the Manager. See Add
// for when it starts and ErrStopped.
func (m *Manager) AddProvider(p fleet.Provider) error {
	if p == nil {
		return invalid("nil Provider")
	}
	return m.Add(providerRunnable{p: p, set: m})
}

type providerRunnable struct {
	p   fleet.Provider
	set fleet.Set
}

func (r providerRunnable) Start(ctx context.Context) error { return r.p.Run(ctx, r.set) }

func (providerRunnable) NeedLeaderElection() bool { return false }

// declarations returns what Declare was given.
func (m *Manager) declarations() []informer.Declaration {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	return slices.Clone(m.declared)
}
