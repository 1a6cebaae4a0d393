package dedup

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// shared reports whether v, given twice at site, comes back as one string:
// whether the site looked v up.
func shared(s Session, site uint32, v string) bool {
	s.ShareBytes(site, []byte(v))
	b, c := s.ShareBytes(site, []byte(v)), s.ShareBytes(site, []byte(v))
	return unsafe.StringData(b) == unsafe.StringData(c)
}

// unique feeds n values that never recur through site.
func unique(s Session, site uint32, n int, tag string) {
	for i := range n {
		if got := s.ShareBytes(site, fmt.Appendf(nil, "%s-%d", tag, i)); got != fmt.Sprintf("%s-%d", tag, i) {
			panic("value changed")
		}
	}
}

func TestSites(t *testing.T) {
	tests := []struct {
		name string
		run  func(s Session) bool // whether the last value was shared
		want bool
	}{
		{"a field whose values recur is always looked up", func(s Session) bool {
			for i := range 10 * siteSample {
				s.ShareBytes(1, fmt.Appendf(nil, "v%d", i%4))
			}
			return shared(s, 1, "v1")
		}, true},
		{"a field whose values never recur rests after one sample", func(s Session) bool {
			unique(s, 1, siteSample, "u")
			return shared(s, 1, "later")
		}, false},
		{"a resting field leaves the other fields alone", func(s Session) bool {
			unique(s, 1, siteSample, "u")
			return shared(s, 2, "other")
		}, true},
		{"a resting field is looked up again after its rest", func(s Session) bool {
			unique(s, 1, siteSample, "u")
			unique(s, 1, siteRest, "rest")
			return shared(s, 1, "again")
		}, true},
		{"a second sample without recurrence rests twice as long", func(s Session) bool {
			unique(s, 1, siteSample, "u")
			unique(s, 1, siteRest+siteSample, "v")
			unique(s, 1, siteRest, "w") // half of the second rest
			return shared(s, 1, "still")
		}, false},
		{"values that recur again end the rests", func(s Session) bool {
			unique(s, 1, siteSample, "u")
			unique(s, 1, siteRest, "rest")
			for i := range siteSample {
				s.ShareBytes(1, fmt.Appendf(nil, "r%d", i%2))
			}
			// A new sample without recurrence rests the first length
			// again, not twice it.
			unique(s, 1, siteSample, "x")
			unique(s, 1, siteRest, "y")
			return shared(s, 1, "kept")
		}, true},
		{"sites beyond the table's limit never rest", func(s Session) bool {
			unique(s, maxSites+3, 4*siteSample, "u")
			return shared(s, maxSites+3, "far")
		}, true},
		{"a map of a resting field is neither looked up nor kept", func(s Session) bool {
			for i := range siteSample {
				s.SharedMap(5, stringMapType, fmt.Appendf(nil, "raw-%d", i))
			}
			raw := []byte("\x0a\x06\x0a\x01a\x12\x01b")
			for range 3 {
				if _, ok := s.SharedMap(5, stringMapType, raw); ok {
					return true
				}
				s.KeepMap(5, stringMapType, raw, reflectMap())
			}
			return false
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{}).Begin(nil, nil)
			defer s.End()
			if got := tt.run(s); got != tt.want {
				t.Fatalf("shared = %v, want %v", got, tt.want)
			}
		})
	}
}

func reflectMap() reflect.Value { return reflect.ValueOf(map[string]string{"a": "b"}) }
