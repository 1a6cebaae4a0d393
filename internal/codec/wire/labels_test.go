package wire

import (
	"maps"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

var _ labels.Labels = Labels(nil)

func TestLabelsReadInPlace(t *testing.T) {
	withLabels := testCM("ns", "a", "1")
	withLabels.Labels = map[string]string{"app": "web", "tier": "", "z": "last"}
	raw := mustMarshal(t, withLabels)
	tests := []struct {
		name  string
		raw   []byte
		label string
		want  string
		ok    bool
	}{
		{"a present label", raw, "app", "web", true},
		{"a label with an empty value", raw, "tier", "", true},
		{"an absent label", raw, "nope", "", false},
		{"an object without labels", mustMarshal(t, testCM("ns", "b", "1")), "app", "", false},
		{"empty bytes", nil, "app", "", false},
		{"malformed bytes", []byte{0x0a, 0x7f, 0x01}, "app", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Labels(tc.raw).Lookup(tc.label)
			if got != tc.want || ok != tc.ok || Labels(tc.raw).Has(tc.label) != tc.ok || Labels(tc.raw).Get(tc.label) != tc.want {
				t.Fatalf("Lookup(%q) = %q, %v; want %q, %v", tc.label, got, ok, tc.want, tc.ok)
			}
		})
	}
	t.Run("a selector matches on the bytes", func(t *testing.T) {
		sel, _ := labels.Parse("app=web,tier,!missing")
		if !sel.Matches(Labels(raw)) {
			t.Fatal("selector did not match")
		}
	})
}

func FuzzLabels(f *testing.F) {
	f.Add("app", "web", []byte{0x0a, 0x03, 0x5a, 0x01, 0x0a})
	f.Add("", "", []byte(nil))
	f.Fuzz(func(t *testing.T, key, value string, junk []byte) {
		Labels(junk).Lookup(key) // never panics on any bytes
		Labels(junk).Each(func(string, string) {})
		cm := testCM("ns", "a", "1")
		cm.Labels = map[string]string{key: value, key + "-other": "x"}
		raw, err := cm.Marshal()
		if err != nil {
			t.Skip()
		}
		if got, ok := Labels(raw).Lookup(key); !ok || got != value {
			t.Fatalf("Lookup(%q) = %q, %v; want %q", key, got, ok, value)
		}
		all := map[string]string{}
		Labels(raw).Each(func(k, v string) { all[k] = v })
		if !maps.Equal(all, cm.Labels) {
			t.Fatalf("Each = %v, want %v", all, cm.Labels)
		}
	})
}
