package cron_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubego/kubego/examples/cronjob/cron"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNextRunOfEachForm(t *testing.T) {
	for _, tc := range []struct {
		spec, from, want string
	}{
		{"* * * * *", "2026-03-01 10:00", "2026-03-01 10:01"},
		{"*/15 * * * *", "2026-03-01 10:07", "2026-03-01 10:15"},
		{"5 * * * *", "2026-03-01 10:05", "2026-03-01 11:05"},
		{"0 0 * * *", "2026-12-31 23:59", "2027-01-01 00:00"},
		{"30 9 * * MON-FRI", "2026-12-04 09:30", "2026-12-07 09:30"}, // Friday to Monday
		{"0 12 1 * *", "2026-01-31 13:00", "2026-02-01 12:00"},
		{"0 0 29 2 *", "2026-03-01 00:00", "2028-02-29 00:00"},
		{"0 0 31 * *", "2026-04-01 00:00", "2026-05-31 00:00"},
		{"0 0 1 JAN,jul *", "2026-02-01 00:00", "2026-07-01 00:00"},
		{"0 0 * * 7", "2026-12-02 00:00", "2026-12-06 00:00"},  // 7 is Sunday
		{"0 0 13 * 5", "2026-12-02 00:00", "2026-12-04 00:00"}, // restricted day and weekday: either
		{"0 0 13 * *", "2026-12-02 00:00", "2026-12-13 00:00"},
		{"0 0 ? * 5", "2026-12-02 00:00", "2026-12-04 00:00"},
		{"10-20/5 1 * * *", "2026-12-02 01:16", "2026-12-02 01:20"},
		{"50/5 * * * *", "2026-12-02 01:56", "2026-12-02 02:50"},
		{"1,2,3 4 * * *", "2026-12-02 04:03", "2026-12-03 04:01"},
		{"@hourly", "2026-12-02 04:03", "2026-12-02 05:00"},
		{"@daily", "2026-12-02 04:03", "2026-12-03 00:00"},
		{"@midnight", "2026-12-02 04:03", "2026-12-03 00:00"},
		{"@weekly", "2026-12-02 04:03", "2026-12-06 00:00"},
		{"@monthly", "2026-12-02 04:03", "2027-01-01 00:00"},
		{"@yearly", "2026-12-02 04:03", "2027-01-01 00:00"},
		{"@annually", "2026-12-02 04:03", "2027-01-01 00:00"},
		{"@every 90m", "2026-12-02 04:03", "2026-12-02 05:33"},
		{"  0   1 * * *  ", "2026-12-02 04:03", "2026-12-03 01:00"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := cron.Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.Next(at(tc.from)), at(tc.want); !got.Equal(want) {
				t.Fatalf("Next(%s) = %s, want %s", tc.from, got, want)
			}
		})
	}
}

func TestImpossibleDateNeverRuns(t *testing.T) {
	s, err := cron.Parse("0 0 30 2 *")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Next(at("2026-01-01 00:00")); !got.IsZero() {
		t.Fatalf("February 30th runs at %s", got)
	}
	if got := (cron.Schedule{}).Next(at("2026-01-01 00:00")); !got.IsZero() {
		t.Fatalf("the zero Schedule runs at %s", got)
	}
}

func TestNextFollowsTheLocationsClock(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	s, _ := cron.Parse("30 2 * * *")
	// 2026-03-08 02:30 does not exist in New York (clocks jump from 2:00
	// to 3:00): the next 02:30 is the day after.
	from := time.Date(2026, 3, 8, 1, 0, 0, 0, ny)
	if got, want := s.Next(from), time.Date(2026, 3, 9, 2, 30, 0, 0, ny); !got.Equal(want) {
		t.Fatalf("Next = %s, want %s", got, want)
	}
}

func TestRefusedSchedulesNameTheirField(t *testing.T) {
	for _, tc := range []struct{ spec, field string }{
		{"", ""},
		{"* * * *", ""},
		{"* * * * * *", ""},
		{"60 * * * *", "minute"},
		{"* 24 * * *", "hour"},
		{"* * 0 * *", "day of month"},
		{"* * 32 * *", "day of month"},
		{"* * * 13 *", "month"},
		{"* * * FOO *", "month"},
		{"* * * * 8", "day of week"},
		{"5-1 * * * *", "minute"},
		{"*/0 * * * *", "minute"},
		{"*/61 * * * *", "minute"},
		{"1,,2 * * * *", "minute"},
		{"-1 * * * *", "minute"},
		{"+1 * * * *", "minute"},
		{"1-2-3 * * * *", "minute"},
		{"@fortnightly", "descriptor"},
		{"@every", "descriptor"},
		{"@every soon", "descriptor"},
		{"@every 10ms", "descriptor"},
		{"TZ=UTC 0 * * * *", ""},
		{"CRON_TZ=Europe/Paris 0 * * * *", ""},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := cron.Parse(tc.spec)
			var pe *cron.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, cron.ErrSyntax) {
				t.Fatalf("err = %v, want a *ParseError wrapping ErrSyntax", err)
			}
			if pe.Field != tc.field {
				t.Fatalf("field %q, want %q (%v)", pe.Field, tc.field, err)
			}
		})
	}
}

// Any text parses or is refused with a *ParseError, never a panic; a
// schedule that parses runs at moments it matches, strictly after the
// time given, and none between.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 1-3 1,15 JAN-MAR mon-fri", "0 0 29 2 *", "@daily", "@every 1h", "50/7 */5 ? * 7", "0 0 31 4 *"} {
		f.Add(s, int64(1_800_000_000))
	}
	f.Fuzz(func(t *testing.T, spec string, unix int64) {
		s, err := cron.Parse(spec)
		if err != nil {
			if !errors.Is(err, cron.ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		from := time.Unix(unix%(1<<34), 0).UTC()
		next := s.Next(from)
		if next.IsZero() {
			return
		}
		if !next.After(from) {
			t.Fatalf("Next(%s) = %s, not after", from, next)
		}
		if strings.HasPrefix(strings.TrimSpace(spec), "@every") {
			return
		}
		if !s.Matches(next) {
			t.Fatalf("Next(%s) = %s, which does not match", from, next)
		}
		// No minute between matches (checked one by one when the gap is
		// short enough).
		if next.Sub(from) <= 48*time.Hour {
			for m := from.Truncate(time.Minute).Add(time.Minute); m.Before(next); m = m.Add(time.Minute) {
				if s.Matches(m) {
					t.Fatalf("Next(%s) = %s, but %s matches", from, next, m)
				}
			}
		}
	})
}

func Example() {
	s, err := cron.Parse("30 9 * * MON-FRI")
	if err != nil {
		panic(err)
	}
	friday := time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC)
	fmt.Println(s.Next(friday))
	_, err = cron.Parse("30 25 * * *")
	fmt.Println(err)
	// Output:
	// 2026-12-07 09:30:00 +0000 UTC
	// cron: invalid schedule "30 25 * * *": hour: 25 is out of range 0-23
}
