// Package leaderelection elects one leader among the replicas of a
// controller, through a coordination.k8s.io/v1 Lease.
//
// Each replica is a candidate: it creates an Elector for the same Lease with
// an identity of its own, and calls Run.
//
//	e, err := leaderelection.New(leaderelection.NewStore(c), leaderelection.Config{
//		Lock:     types.NamespacedName{Namespace: "kube-system", Name: "my-controller"},
//		Identity: hostname + "-" + randomSuffix,
//		Callbacks: leaderelection.Callbacks{
//			OnStartedLeading: func(ctx context.Context) { runControllers(ctx) },
//		},
//		ReleaseOnCancel: true,
//	})
//	...
//	err = e.Run(ctx) // nil after ctx ends; a *LostError if leadership was lost
//
// At most one candidate leads at a time. The leader renews the lease every
// RetryPeriod. The others read it every RetryPeriod and take it over once it
// has not changed for LeaseDuration, or at once when it has no holder (a
// leader that stops with ReleaseOnCancel writes it back empty). Writes are
// guarded by the lease's resourceVersion, so of two candidates racing for
// the lease one wins and the other, seeing a conflict, reads it again.
//
// # Hand-over
//
// With a store that is a LeaseWatcher (NewStore's is), a candidate that
// does not lead also watches its lease and reads it as soon as it changes.
// A leader that stops with ReleaseOnCancel is then replaced in the time of
// one watch event, one read and one write, instead of up to RetryPeriod
// later; and a renewal is observed when it is written, so a leader that
// dies is replaced LeaseDuration after its last renewal. The watch only
// times the reads: what a candidate does is decided on a read, on its own
// clock, as below.
//
// # Terms and the leader's deadline
//
// Leadership comes in terms. A term begins when a write that names this
// candidate as holder succeeds, and ends RenewDeadline after the last
// successful renewal was sent (sent, not answered: the time a request spends
// in flight counts against the leader). When a term ends the context given
// to OnStartedLeading is cancelled, IsLeader turns false, OnStoppedLeading is
// called and Run returns a *LostError. The end is enforced by a timer of
// the term's own, so a hanging store call or a slow callback cannot extend
// it.
//
// # Clock assumptions
//
// Safety rests on elapsed time only, never on agreement between the clocks
// of different machines:
//
//   - A follower measures a lease's expiry on its own monotonic clock,
//     starting at the moment it observed the last change of the lease
//     record (its resourceVersion, holder or renewTime). The timestamps
//     written in the lease (renewTime, acquireTime) are informative only and
//     are never compared with the follower's clock, so wall-clock offsets
//     between machines, and wall-clock jumps, do not matter.
//   - The leader measures its term on its own monotonic clock from the
//     moment it sent the renewal. A follower can only observe that renewal
//     after it was sent, so it cannot take the lease over earlier than
//     LeaseDuration after the send, while the leader stops acting
//     RenewDeadline after it.
//   - What must hold is that clocks run at about the same rate: the leader
//     stops before any follower may take over as long as, during one
//     LeaseDuration, the followers' clocks do not run faster than the
//     leader's by more than LeaseDuration − RenewDeadline minus the time
//     the leader's code needs to notice the cancelled context. With the
//     defaults (15s and 10s) that is a 5 s margin, far above the drift of
//     real clocks (parts per million).
//   - A leader that is paused (a suspended VM, SIGSTOP, a debugger) cannot
//     act on its deadline while paused: when it resumes, the term's timer
//     fires at once, but a goroutine may complete a write before it sees
//     the cancelled context. No lease protocol prevents that; work that
//     needs a hard guarantee must also be fenced at its target (for example
//     by preconditions on the objects it writes).
//   - Reads must be consistent (the API server's default for a GET), and
//     identities must be unique: a candidate finding its own identity in
//     the lease takes it over at once.
//
// Deleting the Lease while a leader holds it lets another candidate create
// it and lead at once; the old leader notices at its next renewal (within
// RetryPeriod) and stops. Do not delete a lease in use.
//
// # The state machine
//
// The election is a deterministic state machine (see State) stepped with the
// current time and the outcome of the last store call; the Elector performs
// the calls and waits it asks for. All time comes from Config.Clock, so tests
// run under testing/synctest or with a fake clock, without sleeping.
//
// # Storage
//
// LeaseStore is the small interface the elector needs (Get, Create, Update
// of a Lease); NewStore implements it with a kubego client, and tests can
// use an in-memory one.
package leaderelection
