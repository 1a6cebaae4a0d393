package sharding

import (
	"context"
	"maps"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/leaderelection"
)

// labelledStore is a LeaseStore that keeps the ring's label on the
// member's Lease, so the sharder can select the members.
type labelledStore struct {
	inner leaderelection.LeaseStore
	ring  string
}

func (s labelledStore) Get(ctx context.Context, lock types.NamespacedName) (*coordinationv1.Lease, error) {
	return s.inner.Get(ctx, lock)
}

func (s labelledStore) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.inner.Create(ctx, s.label(l))
}

func (s labelledStore) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.inner.Update(ctx, s.label(l))
}

// label returns l with the ring label, copying it only when the label is
// missing.
func (s labelledStore) label(l *coordinationv1.Lease) *coordinationv1.Lease {
	if l.Labels[RingLabel] == s.ring {
		return l
	}
	c := *l
	c.Labels = maps.Clone(l.Labels)
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	c.Labels[RingLabel] = s.ring
	return &c
}
