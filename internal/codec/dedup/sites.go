package dedup

// This file is how a Table stops trying to share the values of a field
// that has nothing to share: names, hashes, per-object settings, data.
// Looking a value up costs a hash and a probe of the recently-met tags;
// for a field whose values never recur that is pure cost. A decoder names
// the field of each value (its site), and the table keeps, per site, a
// count of the values looked up and of those that recurred: found in the
// table, or met before in another object (a value met again only in its
// own object, such as an address kept from one version to the next,
// counts as not recurring). After each
// sample of siteSample lookups, a site where fewer than one in
// siteMinRecur recurred rests: its next values are decoded without a
// lookup, siteRest of them after the first such sample, twice as many
// after each further one in a row (up to siteMaxRest); then it is sampled
// again. A sample with enough recurrences resets the rest. So a field
// whose values recur keeps being shared, one whose values stop recurring
// is looked up for a small fraction of its values, and one that starts
// recurring again is found within a rest. Resting only decides whether a
// value is looked up, never what an object holds.

const (
	siteSample   = 128
	siteMinRecur = 64 // fewer than siteSample/siteMinRecur recurring: rest
	siteRest     = 1024
	siteMaxShift = 6 // rests up to siteRest<<siteMaxShift values
	maxSites     = 1 << 14
)

// siteStat is what a Table knows of one site.
type siteStat struct {
	tries, recurred uint16
	rest            uint32 // values still to decode without a lookup
	shift           uint8  // consecutive samples without recurrence
}

// sites holds the siteStat of every site met, grown on demand.
type sites struct {
	stats []siteStat
	none  siteStat // the stat of sites beyond maxSites: never rests
	// rested counts the values decoded without a lookup (for tests).
	rested uint64
}

// at returns the stat of site. Sites beyond maxSites share one stat that
// never rests.
func (s *sites) at(site uint32) *siteStat {
	if site >= maxSites {
		s.none = siteStat{}
		return &s.none
	}
	if int(site) >= len(s.stats) {
		n := max(2*len(s.stats), int(site)+1, 64)
		s.stats = append(s.stats, make([]siteStat, min(n, maxSites)-len(s.stats))...)
	}
	return &s.stats[site]
}

// resting reports whether the next value of the site is to be decoded
// without a lookup, and counts it.
func (st *siteStat) resting() bool {
	if st.rest == 0 {
		return false
	}
	st.rest--
	return true
}

// note counts one lookup, recurring or not, and ends a sample.
func (st *siteStat) note(recurring bool) {
	st.tries++
	if recurring {
		st.recurred++
	}
	if st.tries < siteSample {
		return
	}
	if int(st.recurred)*siteMinRecur < int(st.tries) {
		st.rest = siteRest << st.shift
		st.shift = min(st.shift+1, siteMaxShift)
	} else {
		st.shift = 0
	}
	st.tries, st.recurred = 0, 0
}
