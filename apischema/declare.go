package apischema

// Declarer is implemented by a Go type that declares more of its own
// schema than its Go shape says: its description, CEL rules, the
// descriptions and rules of its fields, and rules in the syntax of the
// kube struct tag that hold wherever the type is used (an enum of a named
// string type, a pattern). The method is called on the zero value of the
// type (value or pointer receiver), so it must not depend on the value.
type Declarer interface {
	KubeSchema() Declaration
}

// Declaration is what a type declares of its schema (see Declarer). Every
// part is checked when a schema is built: a key of Fields that is not a
// field of the type, a malformed Tag, or an empty rule is a
// *DeclarationError.
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
