package sharding

import (
	"cmp"
	"slices"
	"strconv"
)

// DefaultVirtualNodes is the number of points each member gets on a Ring
// when RingOptions.VirtualNodes is zero.
const DefaultVirtualNodes = 512

// RingOptions configure NewRing. The zero value is useful.
type RingOptions struct {
	// VirtualNodes is the number of points each member gets on the ring.
	// More points spread the keys more evenly over the members, at the
	// cost of a larger ring. Zero means DefaultVirtualNodes.
	VirtualNodes int
}

// Ring maps keys to members by consistent hashing: each member owns the
// arcs of a circle of 64-bit hashes that end at its virtual nodes, and a
// key belongs to the member owning the arc its hash falls on. Adding or
// removing one of N members moves only the keys of the arcs that change
// hands, about 1/N of them; every other key keeps its member.
//
// A Ring is immutable and safe for concurrent use. It depends only on
// the set of members (not their order), so every process that builds a
// Ring of the same members and options maps every key the same way.
type Ring struct {
	members []string
	tokens  []token
}

type token struct {
	hash   uint64
	member int32
}

// NewRing returns the ring of members (duplicates and empty names are
// ignored). A ring of no members maps every key to "".
func NewRing(members []string, opts RingOptions) *Ring {
	vn := opts.VirtualNodes
	if vn <= 0 {
		vn = DefaultVirtualNodes
	}
	ms := slices.Clone(members)
	ms = slices.DeleteFunc(ms, func(m string) bool { return m == "" })
	slices.Sort(ms)
	ms = slices.Compact(ms)
	r := &Ring{members: ms, tokens: make([]token, 0, len(ms)*vn)}
	for i, m := range ms {
		for v := range vn {
			r.tokens = append(r.tokens, token{hash: hashString(m + "#" + strconv.Itoa(v)), member: int32(i)})
		}
	}
	// Ties (equal hashes) go to the member first in name order, so the
	// ring is the same whatever order members were given in.
	slices.SortFunc(r.tokens, func(a, b token) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.member, b.member)
	})
	return r
}

// Members returns the members of the ring, sorted by name. The slice must
// not be modified.
func (r *Ring) Members() []string { return r.members }

// Len returns the number of members.
func (r *Ring) Len() int { return len(r.members) }

// Has reports whether member is on the ring.
func (r *Ring) Has(member string) bool {
	_, ok := slices.BinarySearch(r.members, member)
	return ok
}

// Owner returns the member key belongs to, or "" on an empty ring.
func (r *Ring) Owner(key string) string {
	if len(r.tokens) == 0 {
		return ""
	}
	h := hashString(key)
	i, _ := slices.BinarySearchFunc(r.tokens, h, func(t token, h uint64) int { return cmp.Compare(t.hash, h) })
	if i == len(r.tokens) {
		i = 0
	}
	return r.members[r.tokens[i].member]
}

// hashString is 64-bit FNV-1a followed by the finalizer of MurmurHash3
// (fmix64): FNV alone spreads keys that differ only in their last bytes
// (cm-1, cm-2, ...) poorly over the high bits the ring compares first.
func hashString(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	x := uint64(offset)
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= prime
	}
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
