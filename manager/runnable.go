package manager

import "context"

// Runnable is anything a Manager runs: controllers, servers, periodic
// jobs. Start runs until ctx is done and then returns nil; an error before
// that stops the whole Manager, and Start of the Manager returns it.
type Runnable interface {
	Start(ctx context.Context) error
}

// RunnableFunc adapts a function to Runnable.
type RunnableFunc func(ctx context.Context) error

// Start calls f(ctx).
func (f RunnableFunc) Start(ctx context.Context) error { return f(ctx) }

// LeaderElectionRunnable is implemented by Runnables that tell whether
// they need leadership (a *controller.Controller does). A Runnable that
// does not implement it needs it. Without leader election in the Manager,
// everything runs at once.
type LeaderElectionRunnable interface {
	NeedLeaderElection() bool
}

// AbortableRunnable is a Runnable that can also be stopped at once: the
// Manager runs it with StartAbortable, and ends abort when the runnable
// must stop acting without the drain a graceful stop gives it — a
// leader-only runnable whose term ended. A *controller.Controller is one;
// so may be any runnable that holds work in flight.
type AbortableRunnable interface {
	Runnable
	StartAbortable(ctx, abort context.Context) error
}
