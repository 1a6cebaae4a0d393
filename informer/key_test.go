package informer

import (
	"errors"
	"testing"
)

func TestParseKey(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Key
		wantErr bool
	}{
		{name: "namespaced key splits at the slash", in: "default/web", want: Key{"default", "web"}},
		{name: "cluster-scoped key has no namespace", in: "node-1", want: Key{Name: "node-1"}},
		{name: "empty string is rejected", in: "", wantErr: true},
		{name: "empty namespace is rejected", in: "/web", wantErr: true},
		{name: "empty name is rejected", in: "default/", wantErr: true},
		{name: "two slashes are rejected", in: "a/b/c", wantErr: true},
		{name: "control characters are rejected", in: "a/b\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseKey(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidKey) {
					t.Fatalf("ParseKey(%q) error = %v, want ErrInvalidKey", tt.in, err)
				}
				var ke *keyError
				if !errors.As(err, &ke) {
					t.Fatalf("ParseKey(%q) error %T is not *KeyError", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseKey(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if got.String() != tt.in {
				t.Fatalf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"", "a", "a/b", "/b", "a/", "a/b/c", "\x00", "ns/na\u00e9me"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := parseKey(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("error %v does not wrap ErrInvalidKey", err)
			}
			return
		}
		if k.Name == "" {
			t.Fatalf("valid key %q has empty name", s)
		}
		if k.String() != s {
			t.Fatalf("round trip %q -> %v -> %q", s, k, k.String())
		}
		k2, err := parseKey(k.String())
		if err != nil || k2 != k {
			t.Fatalf("reparse of %q = %v, %v", k.String(), k2, err)
		}
	})
}
