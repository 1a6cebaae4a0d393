package leaderelection

import "fmt"

// State is where a candidate stands in the election. The transitions are:
//
//	Acquiring → Following   the lease has a live holder
//	Following → Acquiring   the holder's lease expired, or it was released
//	Acquiring → Leading     this candidate's write to the lease succeeded
//	Leading   → Stopped     the term ended: not renewed within RenewDeadline,
//	                        lost to another holder, or the context ended
//	Leading   → Releasing   the context ended and ReleaseOnCancel is set
//	Releasing → Stopped     the lease was written back with no holder
//	any       → Stopped     the context ended
type State int

const (
	// Acquiring: no live holder is known; the next attempt tries to take the
	// lease.
	Acquiring State = iota
	// Following: another candidate holds a lease that has not expired by
	// this candidate's clock.
	Following
	// Leading: this candidate holds the lease and its term has not ended.
	Leading
	// Releasing: the context ended while leading; the elector waits for
	// OnStartedLeading to return, then writes the lease back with no holder.
	Releasing
	// Stopped: the election is over for this candidate.
	Stopped
)

func (s State) String() string {
	switch s {
	case Acquiring:
		return "Acquiring"
	case Following:
		return "Following"
	case Leading:
		return "Leading"
	case Releasing:
		return "Releasing"
	case Stopped:
		return "Stopped"
	}
	return fmt.Sprintf("State(%d)", int(s))
}
