// Package cron parses the standard five-field cron schedules of a CronJob
// ("minute hour day-of-month month day-of-week") and the descriptors
// @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly and
// @every <duration>, and finds a schedule's next run after a time.
//
// Each field is "*" (or "?"), a number or name, a range "a-b", a step
// "*/n", "a-b/n" or "a/n" (from a to the field's maximum), or a list of
// these separated by commas. Months may be named JAN to DEC and days of
// the week SUN to SAT (case does not matter); day of week 7 is Sunday, as
// 0. As in Vixie cron, when both day of month and day of week are
// restricted (neither starts with "*" or "?") a day matches if either
// does; otherwise both must.
//
// A Schedule is evaluated in the location of the time given to Next: give
// times in UTC for the schedule to be read in UTC. Time zone prefixes
// (TZ=, CRON_TZ=) are refused; a CronJob names its zone elsewhere.
package cron

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrSyntax is wrapped by every *ParseError.
var ErrSyntax = errors.New("cron: invalid schedule")

// ParseError says which part of a schedule is wrong and why.
type ParseError struct {
	// Spec is the schedule as given.
	Spec string
	// Field names the part at fault ("minute", "day of week", "descriptor").
	Field string
	// Reason says what is wrong.
	Reason string
}

func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("cron: invalid schedule %q: %s", e.Spec, e.Reason)
	}
	return fmt.Sprintf("cron: invalid schedule %q: %s: %s", e.Spec, e.Field, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *ParseError) Unwrap() error { return ErrSyntax }

// Schedule is a parsed schedule. The zero value never runs.
type Schedule struct {
	minute, hour, dom, month, dow uint64 // bit n set: value n matches
	domStar, dowStar              bool   // the field was * or ?
	every                         time.Duration
}

// maxSpecLen bounds the text Parse reads.
const maxSpecLen = 1024

// field describes one of the five fields.
type field struct {
	name     string
	min, max int
	names    map[string]int
}

var (
	minuteField = field{name: "minute", min: 0, max: 59}
	hourField   = field{name: "hour", min: 0, max: 23}
	domField    = field{name: "day of month", min: 1, max: 31}
	monthField  = field{name: "month", min: 1, max: 12, names: map[string]int{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}}
	// Day of week accepts 7 for Sunday; it is folded into 0 after parsing.
	dowField = field{name: "day of week", min: 0, max: 7, names: map[string]int{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}}
)

// descriptors are the @ shorthands and their five fields.
var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// Parse parses spec. Its error is a *ParseError (wrapping ErrSyntax)
// naming the field at fault.
func Parse(spec string) (Schedule, error) {
	fail := func(f, reason string) (Schedule, error) {
		return Schedule{}, &ParseError{Spec: spec, Field: f, Reason: reason}
	}
	if len(spec) > maxSpecLen {
		return fail("", fmt.Sprintf("longer than %d bytes", maxSpecLen))
	}
	s := strings.TrimSpace(spec)
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return fail("", "time zone prefixes are not supported")
	}
	if strings.HasPrefix(s, "@") {
		if d, ok := strings.CutPrefix(s, "@every "); ok {
			every, err := time.ParseDuration(strings.TrimSpace(d))
			if err != nil {
				return fail("descriptor", "@every needs a Go duration such as 90m")
			}
			if every < time.Second {
				return fail("descriptor", "@every needs a duration of at least 1s")
			}
			return Schedule{every: every.Truncate(time.Second)}, nil
		}
		fields, ok := descriptors[strings.ToLower(s)]
		if !ok {
			return fail("descriptor", "unknown descriptor (want @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly or @every <duration>)")
		}
		s = fields
	}
	parts := strings.Fields(s)
	if len(parts) != 5 {
		return fail("", fmt.Sprintf("want 5 fields (minute hour day-of-month month day-of-week), got %d", len(parts)))
	}
	var sch Schedule
	for i, f := range []struct {
		field
		bits *uint64
	}{
		{minuteField, &sch.minute}, {hourField, &sch.hour}, {domField, &sch.dom}, {monthField, &sch.month}, {dowField, &sch.dow},
	} {
		b, err := f.parse(parts[i])
		if err != "" {
			return fail(f.name, err)
		}
		*f.bits = b
	}
	if sch.dow&(1<<7) != 0 {
		sch.dow = sch.dow&^(1<<7) | 1
	}
	sch.domStar = parts[2][0] == '*' || parts[2][0] == '?'
	sch.dowStar = parts[4][0] == '*' || parts[4][0] == '?'
	return sch, nil
}

// parse reads one field: a comma-separated list of terms. It returns the
// set of values, or the reason the text is refused.
func (f field) parse(text string) (uint64, string) {
	var set uint64
	for term := range strings.SplitSeq(text, ",") {
		b, err := f.term(term)
		if err != "" {
			return 0, err
		}
		set |= b
	}
	return set, ""
}

// term reads one term: *, ?, a value, a range, each with an optional step.
func (f field) term(term string) (uint64, string) {
	rng, stepText, hasStep := strings.Cut(term, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || n > f.max-f.min+1 {
			return 0, fmt.Sprintf("step %q: want a number from 1 to %d", stepText, f.max-f.min+1)
		}
		step = n
	}
	var lo, hi int
	switch {
	case rng == "*" || rng == "?":
		lo, hi = f.min, f.max
		if f.name == dowField.name {
			hi = 6 // 7 is Sunday again
		}
	case strings.Contains(rng, "-"):
		a, b, _ := strings.Cut(rng, "-")
		var err string
		if lo, err = f.value(a); err != "" {
			return 0, err
		}
		if hi, err = f.value(b); err != "" {
			return 0, err
		}
		if lo > hi {
			return 0, fmt.Sprintf("range %q: start after end", rng)
		}
	default:
		var err string
		if lo, err = f.value(rng); err != "" {
			return 0, err
		}
		hi = lo
		if hasStep {
			hi = f.max // "a/n": from a to the end
		}
	}
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << uint(v)
	}
	return set, ""
}

// value reads a number or a name within the field's bounds.
func (f field) value(text string) (int, string) {
	if n, ok := f.names[strings.ToLower(text)]; ok {
		return n, ""
	}
	n, err := strconv.Atoi(text)
	if err != nil || text == "" || text[0] == '+' || text[0] == '-' {
		return 0, fmt.Sprintf("%q is not a number or name", text)
	}
	if n < f.min || n > f.max {
		return 0, fmt.Sprintf("%d is out of range %d-%d", n, f.min, f.max)
	}
	return n, ""
}

// horizon bounds how far Next looks: a schedule that matches no day in
// this many years (February 30th) never runs.
const horizon = 5

// Next returns the first run strictly after t (to the minute; to the
// second for @every), in t's location; the zero time if the schedule
// never runs (the zero Schedule, or a date that does not exist).
func (s Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Truncate(time.Second).Add(s.every)
	}
	if s.minute == 0 || s.hour == 0 || s.dom == 0 || s.month == 0 || s.dow == 0 {
		return time.Time{}
	}
	loc := t.Location()
	t = t.Truncate(time.Minute).Add(time.Minute)
	end := t.AddDate(horizon, 0, 0)
	for t.Before(end) {
		y, mo, d := t.Date()
		h, mi := t.Hour(), t.Minute()
		switch {
		case s.month&(1<<uint(mo)) == 0:
			t = time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
		case s.hour&(1<<uint(h)) == 0:
			t = nextHour(t)
		case s.minute&(1<<uint(mi)) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// nextHour returns the start of the hour after t's (t is whole minutes):
// moving by absolute time, an hour repeated or skipped by a clock change
// is handled.
func nextHour(t time.Time) time.Time {
	return t.Add(time.Duration(60-t.Minute()) * time.Minute)
}

// Every returns the period of an @every schedule, whose runs are that far
// apart from the first; zero for the other schedules.
func (s Schedule) Every() time.Duration { return s.every }

// dayMatches applies the day-of-month and day-of-week rule.
func (s Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// Matches reports whether a run is due at t (to the minute). For @every it
// reports false: such a schedule has no fixed moments.
func (s Schedule) Matches(t time.Time) bool {
	if s.every > 0 {
		return false
	}
	return s.month&(1<<uint(t.Month())) != 0 && s.dayMatches(t) &&
		s.hour&(1<<uint(t.Hour())) != 0 && s.minute&(1<<uint(t.Minute())) != 0
}
