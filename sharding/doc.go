// Package sharding runs one controller across several replicas, each
// reconciling and caching only its share of the objects. Kubernetes
// itself coordinates: Leases for membership, a label for assignment,
// label selectors for each replica's informers.
//
// # Members
//
// Each replica is a Member of a ring (named by the author) with an
// identity of its own. It holds a Lease "<ring>-<identity>" in the ring's
// namespace, labelled RingLabel=<ring>, and renews it (package
// leaderelection, each member the only candidate for its own Lease). While
// it holds the Lease, Member.Run runs the replica's informers and
// controllers; when it cannot renew within RenewDeadline it aborts them at
// once, before the sharder may consider it gone (LeaseDuration after it
// last saw the Lease change). A graceful stop lets the reconciles in
// flight finish, then releases the Lease (or, with
// MemberOptions.KeepLeaseOnStop, leaves it held until it expires, so that
// a restart under the same identity before then takes it back and keeps
// every object).
//
// A member's informers select only its objects: Member.Informer adds
// ShardLabel(ring)=<identity> to an informer's label selector, so the
// member lists, watches and caches about 1/N of the objects. Its
// reconciler is wrapped by Member.Guard, which reconciles only objects the
// member owns that are not being drained, and acknowledges drains.
//
// # The sharder
//
// Every replica may also run a Sharder; they elect one leader through the
// Lease "sharder.<ring>", and only the leader acts. It watches the
// members' Leases and the metadata of the sharded objects (never their
// spec or status) and computes a Ring: consistent hashing with
// DefaultVirtualNodes points per live member, so adding or removing one of
// N members moves about 1/N of the objects. What an object is hashed by is
// the author's choice per resource (KeyFunc): ObjectKey, NamespaceKey, or
// OwnerKey, which puts an object on its controller owner's member.
//
// A member is alive while its Lease names it as holder and has changed
// within its duration, measured on the sharder's own clock from when it
// saw the change; Lease timestamps are never compared with the local
// clock. A member that is gone (its Lease expired, released, or missing)
// while objects still carry its label is fenced before any of them moves:
// the sharder writes FenceHolder into its Lease, by an update conditional
// on the resourceVersion it observed (so a member that renewed meanwhile,
// or a watch that lagged, leaves it alive), and renews it until no object
// carries the member's label, then releases it. A member restarted with
// the same identity therefore cannot join, and start on objects, while
// they are being moved away from it.
//
// Membership settles before the absent are fenced: a member whose Lease
// is missing, or was already released when the leader's term began, is
// fenced only once it has been absent for SharderOptions.Settle (counted
// from when the leader first saw it so, or from when the ring last became
// non-empty). Replicas starting together on objects labelled for them (a
// new deployment, a rolling restart, a sharder failover) thus join and
// keep their objects instead of losing them to the first one and getting
// them back by drains. An expired Lease, and a release the leader saw
// happen, are fenced at once. The Lease of a gone member that no object
// needs any more is deleted after SharderOptions.LeaseRetention.
//
// For each object the leader compares the shard label with the member the
// ring chooses, and writes (a merge patch on the labels, conditional on
// the resourceVersion it saw):
//
//   - an unassigned object (new, or just handed back) gets its member;
//   - an object whose member is fenced moves at once: that member
//     stopped acting before its Lease expired (or when it released it) and
//     cannot come back while the fence holds; the objects of a member gone
//     but not yet fenced wait;
//   - an object whose member is alive but no longer the chosen one gets
//     DrainLabel(ring) instead. Its member stops reconciling it and
//     acknowledges by removing both labels (Guard does it, from a
//     reconcile, so after any reconcile of the object in flight there);
//     the object is then unassigned and the leader gives it to its new
//     member. An object is therefore never reconciled by two members at
//     once;
//   - a drain no longer needed (the members changed back) is withdrawn.
//
// New objects are assigned as soon as the leader's watch sees them; when
// the ring changes the leader looks at every object again. A new leader
// starts from the cluster's state: the labels and the Leases are the
// whole state, so a leader killed in the middle of a rebalance leaves
// nothing to repair.
//
// # Wiring
//
//	m, err := sharding.NewMember(c, sharding.MemberOptions{Ring: "foos", Identity: pod, Namespace: ns})
//	s, err := sharding.NewSharder(c, sharding.SharderOptions{Ring: "foos", Identity: pod, Namespace: ns,
//		Resources: []sharding.Resource{{Resource: foosGVR, Kind: fooKind, Key: sharding.OwnerKey}}})
//	go s.Run(ctx)
//	err = m.Run(ctx, func(ctx, abort context.Context) error {
//		f := informer.NewFactory(c, informer.FactoryOptions{OneInformerPerType: true})
//		err := f.Declare(informer.Declare[*Foo](m.Informer(informer.SharedOptions{})))
//		foos, err := informer.NewReader[*Foo](f, informer.ReaderOptions{})
//		...
//		r, err := m.Guard(reconciler, sharding.GuardOptions{Resource: foosGVR, Get: sharding.ReaderGet(foos)})
//		ctrl, err := controller.New(f, controller.Options{Reconciler: r,
//			Sources: []controller.Source{controller.For[*Foo]{}}})
//		...
//		f.Start(ctx)
//		defer f.Wait()
//		return ctrl.StartAbortable(ctx, abort)
//	})
//
// The member needs get, create and update on Leases in the ring's
// namespace, and patch on the sharded resources (to acknowledge drains);
// the sharder also needs list, watch and delete on Leases there (it
// writes the Leases of gone members too, and deletes those no longer
// needed), and list, watch and patch on the sharded resources.
//
// # Limits
//
//   - The leader caches the metadata of every sharded object: its memory
//     grows with the number of objects (metadata only). A mutating webhook
//     assigning new objects at admission would avoid that watch; this
//     package does not have one.
//   - A drain waits for the member's acknowledgement for as long as the
//     member is alive: a member that runs no Guard for a sharded resource
//     never acknowledges, and its objects of that resource never move
//     while it lives.
//   - A member that comes back under the same identity before its Lease
//     expired (cut off, or stopped with KeepLeaseOnStop) keeps its
//     objects. One that released its Lease, or came back after the
//     expiry, does not get them back at once: they move away while it is
//     fenced, and back by drains when it joins (two moves per object).
//     Identities that change with each start (pod names of a Deployment)
//     avoid the fence but move the objects anyway; stable ones (a
//     StatefulSet's) with KeepLeaseOnStop move nothing in a rolling
//     restart.
//   - The leader cannot tell a Lease released a moment ago from one left
//     released by an earlier run: when the replica whose sharder led
//     stops gracefully, the new leader finds its Lease released and moves
//     its objects only after Settle.
//   - A replica that starts more than Settle after the others (a slow
//     image pull) finds its objects moved and gets them back by drains.
//   - Objects are moved one by one, each with its own drain; an owner and
//     the objects it owns (OwnerKey) move together only in the sense that
//     they end on the same member.
package sharding
