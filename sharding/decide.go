package sharding

// action is what the sharder does to one object.
type action int

const (
	// keep: the object is where it belongs (or there is no member).
	keep action = iota
	// assign: give an unassigned object to its member.
	assign
	// drain: ask the live current owner to let go of the object.
	drain
	// undrain: withdraw a drain; the object belongs to its owner again.
	undrain
	// move: reassign at once; the current owner is gone and cannot act.
	move
	// wait: a drain is under way; the owner's acknowledgement comes next.
	wait
)

func (a action) String() string {
	switch a {
	case keep:
		return "keep"
	case assign:
		return "assign"
	case drain:
		return "drain"
	case undrain:
		return "undrain"
	case move:
		return "move"
	case wait:
		return "wait"
	default:
		return "unknown"
	}
}

// decide returns what to do with an object owned by current ("" none),
// carrying the drain label or not, whose key hashes to desired ("" when
// the ring is empty), given the state of the members. It never gives an
// object to a new member while its owner may act: an alive owner is
// drained first, a fenced one is skipped, and the objects of one in
// neither state wait.
func decide(current string, draining bool, desired string, state func(string) memberState) action {
	switch {
	case desired == "":
		return keep
	case current == "":
		return assign
	case current == desired:
		if draining {
			return undrain
		}
		return keep
	}
	switch state(current) {
	case alive:
		if draining {
			return wait
		}
		return drain
	case fenced:
		return move
	default:
		return wait
	}
}
