package wire

import (
	stdjson "encoding/json"
	"testing"
)

func TestPeekTypeMeta(t *testing.T) {
	cases := []struct {
		body, apiVersion, kind string
		ok                     bool
	}{
		{`{}`, "", "", true},
		{` { "kind" : "Pod" , "apiVersion":"v1" } `, "v1", "Pod", true},
		{`{"a":"x\"}","b":[{"kind":"no"}],"kind":"Pod"}`, "", "Pod", true},
		{`{"a":"\\","kind":"Pod"}`, "", "Pod", true},
		{`{"n":-1.5e3,"t":true,"kind":"Pod"}`, "", "Pod", true},
		{`{"kind":"Pod","kind":"Status"}`, "", "Status", true},
		{`{"kind":"Pod","kind":null}`, "", "Pod", true},
		{`{"KIND":"Pod"}`, "", "", false},
		{`{"k\u0069nd":"Pod"}`, "", "", false},
		{`{"kind":"P\u006fd"}`, "", "", false},
		{`{"kind":1}`, "", "", false},
		{`{"a":}`, "", "", false},
		{`{"a":"unterminated}`, "", "", false},
		{`{"a":{"b":1}`, "", "", false},
		{`[]`, "", "", false},
		{`null`, "", "", false},
		{``, "", "", false},
	}
	for _, tc := range cases {
		av, k, ok := PeekTypeMeta([]byte(tc.body))
		if av != tc.apiVersion || k != tc.kind || ok != tc.ok {
			t.Errorf("PeekTypeMeta(%s) = %q, %q, %v; want %q, %q, %v", tc.body, av, k, ok, tc.apiVersion, tc.kind, tc.ok)
		}
	}
}

// FuzzPeekTypeMeta checks PeekTypeMeta against encoding/json: whenever it
// answers for a valid JSON body, it answers what encoding/json reads into a
// struct of apiVersion and kind.
func FuzzPeekTypeMeta(f *testing.F) {
	for _, s := range []string{
		`{"kind":"Pod","apiVersion":"v1"}`,
		`{"a":{"kind":"x"},"kind":"Pod","kind":null}`,
		`{"a":"\\\"","b":[1,{"c":"]"}],"apiVersion":"apps/v1"}`,
		`{"KinD":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		av, k, ok := PeekTypeMeta(body)
		var want struct {
			APIVersion string `json:"apiVersion,omitempty"`
			Kind       string `json:"kind,omitempty"`
		}
		if !ok || stdjson.Unmarshal(body, &want) != nil {
			return
		}
		if av != want.APIVersion || k != want.Kind {
			t.Fatalf("PeekTypeMeta(%q) = %q, %q; encoding/json reads %q, %q", body, av, k, want.APIVersion, want.Kind)
		}
	})
}
