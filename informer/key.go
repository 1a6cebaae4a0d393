package informer

import (
	"fmt"
	"strings"
)

// Key identifies an object in a cache: its namespace ("" for cluster-scoped
// objects) and its name. Keys are comparable and are the map keys of every
// index. Use [KeyOf] to build one from an object.
type Key struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" for a cluster-scoped key.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// KeyOf returns the key of obj. It does not validate the names: the API
// server already did.
func KeyOf(obj interface {
	GetNamespace() string
	GetName() string
}) Key {
	return Key{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// keyError reports a string that is not a valid key.
type keyError struct {
	Input  string // the rejected input, truncated to 64 bytes
	Reason string // what is wrong, e.g. "empty name"
}

func (e *keyError) Error() string {
	return fmt.Sprintf("invalid object key %q: %s", e.Input, e.Reason)
}

// Unwrap returns [ErrInvalidKey].
func (e *keyError) Unwrap() error { return ErrInvalidKey }

// parseKey parses "namespace/name" or "name" (cluster-scoped). It rejects an
// empty name, an empty namespace before a slash, more than one slash, and
// control characters or NUL with a *[keyError] wrapping [ErrInvalidKey].
func parseKey(s string) (Key, error) {
	bad := func(reason string) (Key, error) {
		in := s
		if len(in) > 64 {
			in = in[:64]
		}
		return Key{}, &keyError{Input: in, Reason: reason}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return bad("control character")
		}
	}
	ns, name, found := strings.Cut(s, "/")
	if !found {
		if s == "" {
			return bad("empty name")
		}
		return Key{Name: s}, nil
	}
	switch {
	case ns == "":
		return bad("empty namespace")
	case name == "":
		return bad("empty name")
	case strings.Contains(name, "/"):
		return bad("more than one '/'")
	}
	return Key{Namespace: ns, Name: name}, nil
}
