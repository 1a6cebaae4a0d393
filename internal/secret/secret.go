// Package secret holds credentials (tokens, passwords, Authorization
// headers, private keys) so that no way of printing the value that holds
// them shows them.
//
// A [Value] keeps its text behind a pointer. Printed on its own it says
// "[redacted]" through every fmt verb, log/slog, encoding/json and
// encoding.TextMarshaler; printed as a field of a struct, fmt reaches it
// through an unexported field, where fmt calls no methods, and then shows
// only the pointer's address, since fmt never follows a pointer below the
// top level. Only [Value.Reveal] gives the text back.
//
// Every field of the module that holds a credential the program did not
// receive as an exported field of a type that redacts itself (such as
// rest.Config) is a Value.
package secret

import (
	"fmt"
	"log/slog"
)

// Redacted is what a Value prints as.
const Redacted = "[redacted]"

// Value is a credential. The zero value is the empty credential. A Value is
// immutable and safe for concurrent use; copies share the text.
type Value struct {
	p *string
}

// New returns a Value holding s.
func New(s string) Value {
	if s == "" {
		return Value{}
	}
	return Value{p: &s}
}

// FromBytes returns a Value holding a copy of b.
func FromBytes(b []byte) Value { return New(string(b)) }

// Reveal returns the credential.
func (v Value) Reveal() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

// IsZero reports whether v holds the empty credential.
func (v Value) IsZero() bool { return v.p == nil }

// Equal reports whether v and w hold the same credential.
func (v Value) Equal(w Value) bool { return v.Reveal() == w.Reveal() }

// String returns Redacted.
func (v Value) String() string { return Redacted }

// GoString returns Redacted (the %#v verb).
func (v Value) GoString() string { return Redacted }

// Format prints Redacted for every verb.
func (v Value) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(Redacted)) }

// LogValue makes log/slog print Redacted.
func (v Value) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalJSON encodes Redacted as a JSON string.
func (v Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText returns Redacted.
func (v Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }
