package fake

import (
	"errors"
	"testing"
)

func TestContinueToken(t *testing.T) {
	tests := []struct {
		name    string
		tok     string
		wantErr bool
	}{
		{"round trip of a namespaced key", encodeContinue(42, key{"ns", "a"}), false},
		{"round trip of a cluster-scoped key", encodeContinue(7, key{"", "node-1"}), false},
		{"garbage is invalid", "not-a-token", true},
		{"empty JSON object is invalid", "e30", true},
		{"wrong version is invalid", "eyJ2IjoieCIsInJ2IjoxLCJzdGFydCI6Ii9hXHUwMDAwIn0", true},
		{"zero resource version is invalid", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiIvYVx1MDAwMCJ9", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv, k, err := parseContinue(tt.tok)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidContinue) {
					t.Fatalf("err = %v, want ErrInvalidContinue", err)
				}
				return
			}
			if err != nil || rv == 0 || k.name == "" {
				t.Fatalf("parse: rv=%d key=%v err=%v", rv, k, err)
			}
		})
	}
}

func TestContinueTokenStartsAfterItsKey(t *testing.T) {
	_, start, err := parseContinue(encodeContinue(1, key{"ns", "b"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []key{{"ns", "a"}, {"ns", "b"}, {"a", "z"}} {
		if !k.less(start) {
			t.Errorf("%v should come before the next page", k)
		}
	}
	for _, k := range []key{{"ns", "b0"}, {"ns", "c"}, {"nt", ""}} {
		if k.less(start) {
			t.Errorf("%v should be on the next page", k)
		}
	}
}

func FuzzParseContinue(f *testing.F) {
	f.Add(encodeContinue(3, key{"ns", "a"}))
	f.Add(encodeContinueAt(latestRV, key{"ns", "a\x00"}))
	f.Add("")
	f.Add("e30")
	f.Fuzz(func(t *testing.T, tok string) {
		rv, k, err := parseContinue(tok)
		if err != nil {
			if !errors.Is(err, ErrInvalidContinue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if rv == 0 {
			t.Fatal("accepted a token without resource version")
		}
		// A valid token re-encodes to one that parses to the same state.
		name := k.name[:len(k.name)-1]
		rv2, k2, err := parseContinue(encodeContinue(rv, key{k.namespace, name}))
		if err != nil || rv2 != rv || k2 != k {
			t.Fatalf("re-encode: %d %v %v, want %d %v", rv2, k2, err, rv, k)
		}
	})
}
