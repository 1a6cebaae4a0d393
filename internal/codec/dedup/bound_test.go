package dedup

import (
	"reflect"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An object written again and again, each write with a new value that
// the informer then receives twice (the write's event, then the event of
// a controller's status or mark that leaves the value alone), feeds the
// table a stream of values that each recur once and never again. The
// table must forget them by generation: it never holds more than two
// generations' worth, however long the stream, besides the few values
// that recur in every write (the map keys), which it keeps.
func TestValuesRecurringOnceAgeOut(t *testing.T) {
	const strs, maps, writes = 64, 16, 5000
	const keys = 8 // room for the values every write repeats
	mapType := reflect.TypeFor[map[string]string]()
	tests := []struct {
		name  string
		twice func(tab *Table, i int) // one write's value, received twice
		held  func(tab *Table) (strings, maps int)
	}{
		{"decoded through a session", func(tab *Table, i int) {
			v := "v" + strconv.Itoa(i)
			raw := []byte("\x0a" + string(rune(7+len(v))) + "\x0a\x03key\x12" + string(rune(len(v))) + v)
			for range 2 {
				s := tab.Begin()
				if _, ok := s.SharedMap(1, mapType, raw); !ok {
					s.KeepMap(1, mapType, raw, reflect.ValueOf(map[string]string{"key": s.ShareBytes(2, []byte(v))}))
				}
				s.End()
			}
		}, func(tab *Table) (int, int) { return len(tab.strs.m), len(tab.raws.m) }},
		{"walked after decoding", func(tab *Table, i int) {
			v := "v" + strconv.Itoa(i)
			for range 2 {
				tab.Object(&corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: "hot", Annotations: map[string]string{"mark": string([]byte(v))}},
					Data:       map[string]string{"key": string([]byte(v))},
				})
			}
		}, func(tab *Table) (int, int) { return len(tab.strs.m), len(tab.maps.m) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := New(Options{Strings: strs, Maps: maps})
			most := [2]int{}
			for i := range writes {
				tt.twice(tab, i)
				s, m := tt.held(tab)
				most = [2]int{max(most[0], s), max(most[1], m)}
			}
			if most[0] > 2*strs+keys || most[1] > 2*maps {
				t.Errorf("table held up to %d strings and %d maps after %d writes; bounds %d and %d", most[0], most[1], writes, 2*strs+keys, 2*maps)
			}
			if most[0] < strs || most[1] < maps {
				t.Errorf("table held at most %d strings and %d maps: the values did not enter it, the test tests nothing", most[0], most[1])
			}
		})
	}
}
