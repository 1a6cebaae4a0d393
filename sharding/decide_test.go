package sharding

import "testing"

func TestDecide(t *testing.T) {
	state := func(m string) memberState {
		switch m {
		case "a", "b":
			return alive
		case "x":
			return fenced
		default:
			return unknown
		}
	}
	for _, tc := range []struct {
		name     string
		current  string
		draining bool
		desired  string
		want     action
	}{
		{"no member: nothing to do", "", false, "", keep},
		{"no member: a gone owner keeps its label", "x", false, "", keep},
		{"an unassigned object is assigned", "", false, "a", assign},
		{"an unassigned object with a stale drain mark is assigned", "", true, "a", assign},
		{"an object at its member stays", "a", false, "a", keep},
		{"a drain no longer needed is withdrawn", "a", true, "a", undrain},
		{"a live owner is drained, not bypassed", "a", false, "b", drain},
		{"a drain under way waits for the acknowledgement", "a", true, "b", wait},
		{"a fenced owner's object moves at once", "x", false, "a", move},
		{"a fenced owner's draining object moves at once", "x", true, "a", move},
		{"an owner neither alive nor fenced keeps its object for now", "y", false, "a", wait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.current, tc.draining, tc.desired, state); got != tc.want {
				t.Fatalf("decide(%q, %v, %q) = %v, want %v", tc.current, tc.draining, tc.desired, got, tc.want)
			}
		})
	}
}
