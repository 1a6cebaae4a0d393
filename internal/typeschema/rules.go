package typeschema

import "reflect"

// Rules checks the CEL of the rules (x-kubernetes-validations) declared on
// a schema while Type builds it: package apischema checks them as
// kube-apiserver does; a build that needs only the schema's structure
// passes none, and then only the rules' form (a rule not empty, a known
// reason, a fieldPath starting with ".") is checked. Each method returns
// the reason a *DeclarationError gives, "" when the rules pass; Type
// names the Go type and field.
type Rules interface {
	// Compile checks rules declared together on schema s (root: s is the
	// schema being built, whose self is the whole object).
	Compile(s *Schema, rules []Validation, root bool) string
	// CompileSchema checks the rules inside a schema a Declaration gives
	// whole (Declaration.Schema).
	CompileSchema(s *Schema) string
	// Costs checks the estimated costs of every rule of the whole built
	// schema s. Over a limit, it returns the path from s of the schema
	// the offending rule is declared on, the rule's expression and the
	// reason.
	Costs(s *Schema) (path, expression, reason string)
}

// owner is the Go type, and field of it, a schema was built from.
type owner struct {
	t     reflect.Type
	field string
}

// checkCosts refuses the built schema s of root type t when b.rules finds
// a rule over a cost limit, naming the Go type and field the rule was
// declared on (t and the rule's path when no type declared it).
func (b *builder) checkCosts(s *Schema, t reflect.Type) error {
	if b.rules == nil {
		return nil
	}
	path, expression, reason := b.rules.Costs(s)
	if reason == "" {
		return nil
	}
	o, ok := b.owners[path]
	if !ok || o.t == nil {
		o = owner{t: t, field: path}
	}
	return &DeclarationError{Type: o.t, Field: o.field, Declaration: expression, Reason: reason}
}
