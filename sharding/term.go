package sharding

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
)

// term is what a leading sharder holds: its caches, the membership and
// the drains under way. All of it is dropped when the term ends.
type term struct {
	members   *membership
	resources []*termResource
	drains    *drains
}

// termResource is one sharded resource during a term.
type termResource struct {
	idx     int
	res     Resource
	inf     *informer.Informer[*metav1.PartialObjectMetadata]
	changed chan struct{} // the ring changed: look at every object again
}

// lead assigns until ctx ends: it caches the members' Leases and the
// sharded objects' metadata, and runs one controller per resource whose
// Requests are the objects, enqueued by their events and, when the ring
// changes, all of them.
func (s *Sharder) lead(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := informer.NewFactory(s.client, informer.FactoryOptions{Logger: s.log, Clock: s.opts.Clock})
	defer func() {
		cancel()
		_ = f.Wait()
	}()
	leases, err := informer.Acquire[*coordinationv1.Lease](f, informer.SharedOptions{
		Namespace:     s.opts.Namespace,
		LabelSelector: RingLabel + "=" + s.opts.Ring,
	})
	if err != nil {
		return err
	}
	t := &term{drains: &drains{start: map[drainKey]time.Time{}}}
	leaseClient := client.Typed[*coordinationv1.Lease](s.client).Namespace(s.opts.Namespace)
	t.members = newMembership(membershipConfig{
		ring: s.opts.Ring, ns: s.opts.Namespace, ringOpts: s.opts.RingOptions, clock: s.opts.Clock, store: s.store, log: s.log,
		del: func(ctx context.Context, id, rv string) error {
			return leaseClient.Delete(ctx, leaseName(s.opts.Ring, id), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
		},
		list: snapshotLeases(leases), owned: t.owned, labelled: t.labelled,
		onChange: func(v *view) {
			if s.metrics != nil {
				s.metrics.members.Set(float64(v.ring.Len()))
			}
			for _, r := range t.resources {
				select {
				case r.changed <- struct{}{}:
				default:
				}
			}
		},
		settle: s.opts.Settle, retention: s.opts.LeaseRetention,
	})
	poke := func() { t.members.poke() }
	if _, err := leases.AddEventHandler(informer.HandlerFuncs[*coordinationv1.Lease]{
		AddFunc:    func(*coordinationv1.Lease, bool) { poke() },
		UpdateFunc: func(_, _ *coordinationv1.Lease) { poke() },
		DeleteFunc: func(*coordinationv1.Lease, bool) { poke() },
	}, informer.HandlerOptions{}); err != nil {
		return err
	}
	var ctrls []*controller.Controller
	for i, r := range s.opts.Resources {
		opts := informer.SharedOptions{
			Namespace: r.Namespace, Transform: slim, TransformName: "sharding.slim",
			Indexers: map[string]func(informer.Object) []string{shardIndex: shardOf(ShardLabel(s.opts.Ring))},
		}
		// Declared, so that the assigner's source below gets this
		// informer.
		if err := f.Declare(informer.DeclareMetadata(r.Resource, opts)); err != nil {
			return err
		}
		inf, err := informer.AcquireMetadata(f, r.Resource, opts)
		if err != nil {
			return err
		}
		tr := &termResource{idx: i, res: r, inf: inf, changed: make(chan struct{}, 1)}
		t.resources = append(t.resources, tr)
		c, err := controller.New(f, controller.Options{
			Name:       "sharder-" + s.opts.Ring + "-" + r.Resource.GroupResource().String(),
			Reconciler: &assigner{s: s, t: t, r: tr},
			Sources: []controller.Source{
				controller.ForMetadata{Resource: r.Resource},
				controller.Channel(tr.changed, func(context.Context, struct{}) []controller.Request {
					keys := inf.Lister().Keys()
					reqs := make([]controller.Request, len(keys))
					for i, k := range keys {
						reqs[i] = controller.Request{Key: k}
					}
					return reqs
				}),
			},
			MaxConcurrentReconciles: s.opts.Workers,
			Logger:                  s.log,
			Clock:                   s.opts.Clock,
		})
		if err != nil {
			return err
		}
		ctrls = append(ctrls, c)
	}
	f.Start(ctx)
	// Membership needs the objects too: which gone members still own some.
	if err := leases.WaitForSync(ctx); err != nil {
		return err
	}
	for _, r := range t.resources {
		if err := r.inf.WaitForSync(ctx); err != nil {
			return err
		}
	}
	t.members.update(ctx)
	var membersDone sync.WaitGroup
	membersDone.Go(func() { t.members.run(ctx) })
	defer func() {
		cancel()
		membersDone.Wait()
	}()
	s.term.Store(t)
	defer func() {
		s.term.Store(nil)
		if s.metrics != nil {
			s.metrics.members.Set(0)
		}
	}()
	s.log.Info("leading: assigning objects", "members", t.members.current().ring.Members())

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for _, c := range ctrls {
		wg.Go(func() {
			// A sharder that stops leading stops writing at once.
			if err := c.StartAbortable(ctx, ctx); err != nil && ctx.Err() == nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	return firstErr
}

// shardIndex indexes the sharder's caches by shard label value.
const shardIndex = "sharding.kubego.io/shard"

// shardOf returns the index function of shardIndex for label.
func shardOf(label string) func(informer.Object) []string {
	return func(o informer.Object) []string {
		if v, ok := o.GetLabels()[label]; ok && v != "" {
			return []string{v}
		}
		return nil
	}
}

// owned returns the number of objects labelled for member id.
func (t *term) owned(id string) int {
	n := 0
	for _, r := range t.resources {
		keys, _ := r.inf.Lister().IndexKeys(shardIndex, id)
		n += len(keys)
	}
	return n
}

// labelled returns the shard label values in use.
func (t *term) labelled() []string {
	var out []string
	for _, r := range t.resources {
		vs, _ := r.inf.Lister().IndexValues(shardIndex)
		out = append(out, vs...)
	}
	return out
}

// slim keeps of a cached object only what the sharder reads: name,
// namespace, resourceVersion, labels and owner references.
func slim(o informer.Object) informer.Object {
	m, ok := o.(*metav1.PartialObjectMetadata)
	if !ok {
		return o
	}
	m.ObjectMeta = metav1.ObjectMeta{
		Name:            m.Name,
		Namespace:       m.Namespace,
		ResourceVersion: m.ResourceVersion,
		Labels:          m.Labels,
		OwnerReferences: m.OwnerReferences,
	}
	return m
}

// assigner is the reconciler of one sharded resource during a term.
type assigner struct {
	s *Sharder
	t *term
	r *termResource
}

func (a *assigner) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	dk := drainKey{resource: a.r.idx, key: req.Key}
	obj, ok := a.r.inf.Lister().GetKey(req.Key)
	if !ok {
		a.t.drains.end(dk)
		return controller.Result{}, nil
	}
	ring := a.s.opts.Ring
	v := a.t.members.current()
	current := obj.Labels[ShardLabel(ring)]
	_, draining := obj.Labels[DrainLabel(ring)]
	desired := v.ring.Owner(a.r.res.Key(a.r.res.Kind, obj))
	act := decide(current, draining, desired, v.state)
	var labels map[string]any
	switch act {
	case keep, wait:
		return controller.Result{}, nil
	case assign, move:
		labels = map[string]any{ShardLabel(ring): desired, DrainLabel(ring): nil}
	case drain:
		labels = map[string]any{DrainLabel(ring): "true"}
	case undrain:
		labels = map[string]any{DrainLabel(ring): nil}
	}
	if err := a.patch(ctx, obj, labels); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			a.t.drains.end(dk)
			return controller.Result{}, nil
		case apierrors.IsConflict(err):
			// The cache is behind; its next event enqueues the object
			// again, and so does this requeue if that event came first.
			return controller.Result{Requeue: true}, nil
		}
		return controller.Result{}, &PatchError{Object: objectName(obj), Action: act.String(), Err: err}
	}
	now := a.s.opts.Clock.Now()
	a.s.log.Debug("labelled", "object", objectName(obj), "action", act.String(), "from", current, "to", desired)
	m := a.s.metrics
	switch act {
	case assign:
		began, drained := a.t.drains.end(dk)
		if m != nil {
			m.assignments.Inc()
			if drained {
				m.drainDuration.Observe(now.Sub(began).Seconds())
			}
		}
	case move:
		a.t.drains.end(dk)
		if m != nil {
			m.reassignments.WithLabelValues("member_gone").Inc()
		}
	case drain:
		a.t.drains.begin(dk, now)
		if m != nil {
			m.reassignments.WithLabelValues("drain").Inc()
		}
	case undrain:
		a.t.drains.end(dk)
	}
	return controller.Result{}, nil
}

// patch merges labels into obj's, on the condition that obj is still at
// the resourceVersion the cache shows.
func (a *assigner) patch(ctx context.Context, obj *metav1.PartialObjectMetadata, labels map[string]any) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": obj.ResourceVersion,
		"labels":          labels,
	}})
	if err != nil {
		return err
	}
	r := a.s.meta.Resource(a.r.res.Resource)
	if obj.Namespace != "" {
		r = r.Namespace(obj.Namespace)
	}
	_, err = r.Patch(ctx, obj.Name, types.MergePatchType, body, metav1.PatchOptions{})
	return err
}
