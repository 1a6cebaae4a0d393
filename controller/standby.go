package controller

import "fmt"

// Standby is what a leader-only controller keeps ready on a replica that
// does not lead (Options.Standby; manager.Options.Standby sets the
// default of a Manager's controllers).
//
// A warm standby runs the informers of the controller's sources from the
// moment the Manager starts, leader or not, so their caches are synced
// when it is elected: its first reconcile needs no list from the API
// server, only the replay of the cache to the controller's handlers
// (every cached object is enqueued once, as on any start). Nothing is
// enqueued or reconciled before the replica leads. The cost is the
// memory of those caches on every standby replica, as much as the
// leader's (the objects of the sources' types, in the shape the informers
// keep them: whole, metadata only, compact or decoded, transformed).
//
// A cold standby takes its sources' informers only when the controller
// starts, on election: a standby holds none of their memory (unless
// something else on the replica uses the same informer: a reader, or a
// controller that runs on every replica), and the new leader lists every
// object before its first reconcile. An informer options conflict is
// then reported by Start instead of New.
type Standby int

const (
	// StandbyDefault is the zero value: the Manager's default, warm
	// without one.
	StandbyDefault Standby = iota
	// StandbyWarm runs the sources' informers before the controller
	// starts.
	StandbyWarm
	// StandbyCold takes the sources' informers when the controller
	// starts.
	StandbyCold
)

func (s Standby) String() string {
	switch s {
	case StandbyDefault:
		return "default"
	case StandbyWarm:
		return "warm"
	case StandbyCold:
		return "cold"
	}
	return fmt.Sprintf("Standby(%d)", int(s))
}
