package manager

import (
	"context"
	"fmt"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rbac"
)

// Permissions returns what the Manager's work needs of the API server, as
// far as it knows it now, for rbac.Derive: list and watch of every type
// its informer factory was asked for or had declared (Declare, controller
// sources, readers), in the namespace the informer is limited to or
// everywhere; get, create and update of the leader election Lease (get
// and update by its name); create and patch of events.k8s.io Events when
// an EventRecorder was made (in the namespaces the informers are limited
// to, or everywhere); create of TokenReviews and SubjectAccessReviews with
// SecureMetrics; and the permissions given in Options.Permissions and by
// each runnable that is [Permitted] (a controller: those of its
// controller.Options.Permissions, its writes).
//
// Call it once the controllers are set up (before Start is fine): a type
// first read later, by a reader made in a reconcile, is not known yet;
// declare such types (Declare) in the setup. The clusters added with
// AddCluster are not included. Typed informers' resources are resolved
// through the Manager's client (a custom type the client maps through
// discovery asks the server, hence ctx); a type it cannot map is an error
// wrapping the client's *client.UnknownTypeError.
func (m *Manager) Permissions(ctx context.Context) ([]rbac.Permission, error) {
	var perms []rbac.Permission
	namespaces := map[string]bool{} // of the informers; "" is everywhere
	for _, t := range m.factory.Targets() {
		gvr := t.Resource
		if t.Form == informer.Typed && gvr.Empty() {
			mp, err := m.client.MappingOf(ctx, t.Type)
			if err != nil {
				return nil, fmt.Errorf("manager: Permissions: informer %s: %w", t, err)
			}
			gvr = mp.Resource
		}
		namespaces[t.Namespace] = true
		perms = append(perms, rbac.Permission{Group: gvr.Group, Resource: gvr.Resource, Verbs: []string{"list", "watch"}, Namespace: t.Namespace})
	}
	if le := m.opts.LeaderElection; le != nil {
		lease := rbac.Permission{Group: "coordination.k8s.io", Resource: "leases", Namespace: le.Lock.Namespace}
		byName := lease
		byName.Verbs, byName.Names = []string{"get", "update"}, []string{le.Lock.Name}
		lease.Verbs = []string{"create"} // a create has no name to match
		perms = append(perms, byName, lease)
	}
	m.recs.mu.Lock()
	events := len(m.recs.byName) > 0
	m.recs.mu.Unlock()
	if events {
		if len(namespaces) == 0 || namespaces[""] {
			namespaces = map[string]bool{"": true}
		}
		for ns := range namespaces {
			perms = append(perms, rbac.Permission{Group: "events.k8s.io", Resource: "events", Verbs: []string{"create", "patch"}, Namespace: ns})
		}
	}
	if m.opts.SecureMetrics != nil {
		perms = append(perms,
			rbac.Permission{Group: "authentication.k8s.io", Resource: "tokenreviews", Verbs: []string{"create"}},
			rbac.Permission{Group: "authorization.k8s.io", Resource: "subjectaccessreviews", Verbs: []string{"create"}})
	}
	perms = append(perms, m.opts.Permissions...)
	m.mu.Lock()
	for _, r := range m.runnables {
		if p, ok := r.(Permitted); ok {
			perms = append(perms, p.Permissions()...)
		}
	}
	m.mu.Unlock()
	return perms, nil
}

// Permitted is a Runnable that names the API requests it makes (its
// writes, its reads outside the Manager's informers), for
// [Manager.Permissions]. A *controller.Controller is one.
type Permitted interface {
	Permissions() []rbac.Permission
}

var _ Permitted = (*controller.Controller)(nil)
