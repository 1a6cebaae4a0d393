package typeschema

// Declarer is implemented by a Go type that declares more of its own
// schema than its Go shape says (see apischema.Declarer). KubeSchema is
// called on the zero value of the type.
type Declarer interface {
	KubeSchema() Declaration
}

// Declaration is what a type declares of its schema (see Declarer);
// every part is checked when a schema is built.
type Declaration struct {
	// Description describes the type wherever it is used (a field's own
	// description takes precedence).
	Description string
	// Tag holds declarations in the syntax of the kube struct tag, for
	// every use of the type: "enum=Allow|Forbid|Replace",
	// "pattern=^[a-z]+$", "mapType=atomic".
	Tag string
	// Validations are CEL rules on the type's schema.
	Validations []Validation
	// Fields declares, by Go field name, a field's description and CEL
	// rules.
	Fields map[string]Field
	// Schema, when set, is the type's whole schema, used as given (a copy):
	// for a type with a JSON form of its own (a json.Marshaler) that this
	// package does not know. The other parts of the Declaration must then
	// be empty.
	Schema *Schema
}

// Field is what a Declaration declares of one field.
type Field struct {
	Description string
	Validations []Validation
}
