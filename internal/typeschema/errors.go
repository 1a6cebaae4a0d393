package typeschema

import (
	"errors"
	"fmt"
	"reflect"
)

var (
	// ErrDeclaration is wrapped by a *DeclarationError (see
	// apischema.ErrDeclaration).
	ErrDeclaration = errors.New("invalid schema declaration")
	// ErrUnsupported is wrapped by a *TypeError (see
	// apischema.ErrUnsupported).
	ErrUnsupported = errors.New("no schema for Go type")
)

// DeclarationError is a declaration that cannot be honoured, naming the
// Go type and field it was found on (see apischema.DeclarationError).
type DeclarationError struct {
	// Type is the struct type holding the field, or the type whose
	// Declarer method made the declaration.
	Type reflect.Type
	// Field is the Go field name ("" for a declaration on the type), or
	// the path of a declaration of Options.Declarations (Type is then the
	// type built).
	Field string
	// Declaration is the offending entry ("patern=x", "Fields[Nmae]").
	Declaration string
	// Reason says what is wrong with it.
	Reason string
}

func (e *DeclarationError) Error() string {
	where := e.Type.String()
	if e.Field != "" {
		where += "." + e.Field
	}
	return fmt.Sprintf("apischema: %s: %q: %s", where, e.Declaration, e.Reason)
}

// Unwrap returns ErrDeclaration.
func (e *DeclarationError) Unwrap() error { return ErrDeclaration }

// TypeError is a Go type that has no schema, reached at Path from the root
// type.
type TypeError struct {
	Type   reflect.Type
	Path   string
	Reason string
}

func (e *TypeError) Error() string {
	at := ""
	if e.Path != "" {
		at = " at " + e.Path
	}
	return fmt.Sprintf("apischema: %s%s: %s", e.Type, at, e.Reason)
}

// Unwrap returns ErrUnsupported.
func (e *TypeError) Unwrap() error { return ErrUnsupported }
