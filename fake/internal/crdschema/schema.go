// Package crdschema writes a custom resource through its version's
// structural schema, as kube-apiserver does: unknown fields pruned,
// defaults set, then types, formats, bounds, enums, list types and CEL
// rules (x-kubernetes-validations) validated (Schema.Apply). It holds no
// state beyond the schema it is given and its compiled Rules.
package crdschema

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubego/kubego/internal/celeval"
)

// Schema is the structural schema of one served version of a
// CustomResourceDefinition (its openAPIV3Schema), applied to every write of
// its custom resources the way kube-apiserver applies it: unknown fields
// pruned, defaults set, then the object validated.
//
// It covers the structural subset: type, properties, additionalProperties,
// items, required, nullable, default, enum, minimum/maximum (and their
// exclusive forms), multipleOf, minLength/maxLength, pattern,
// minItems/maxItems, uniqueItems, minProperties/maxProperties, and the
// extensions x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string
// and x-kubernetes-embedded-resource, and x-kubernetes-list-type set and
// map (with x-kubernetes-list-map-keys), the string formats
// kube-apiserver knows (crdFormats) and the ranges of the int32 and float
// formats, and the CEL rules of x-kubernetes-validations at every level
// (internal/celeval: messageExpression, reason, fieldPath, transition
// rules on update, optionalOldSelf, kube-apiserver's cost limits). On
// update both the schema's checks and the CEL rules are ratcheted as
// kube-apiserver ratchets them: the failures of a value equal to its old
// one are dropped (those of CEL rules become warnings, Check), a value
// without an old one of its own (an
// item of a set or atomic list) counting as its nearest ancestor that has
// one; transition rules are never ratcheted. Value validations under
// allOf, anyOf, oneOf and not are not checked.
type Schema map[string]any

// Rules are the CEL rules of a Schema, compiled once (CompileRules) and
// evaluated by every Apply.
type Rules struct {
	v   *celeval.Validator
	err error
}

// CompileRules compiles the x-kubernetes-validations of every level of s.
// The fake refuses a definition whose rules do not compile when it is
// written, as kube-apiserver does; should the rules of a stored schema
// not compile all the same, every Apply reports "rule compile error" at
// the rule's schema, as kube-apiserver does.
func (s Schema) CompileRules() *Rules {
	v, err := celeval.New(s, celeval.Options{})
	return &Rules{v: v, err: err}
}

// Apply prunes, defaults and validates the custom resource u in place.
// The error lists every invalid field, as a 422 would. old is the stored
// object an update replaces (nil on create): as on kube-apiserver, the
// list types of an update are checked only when old passes that check,
// and transition rules (those reading oldSelf) run only on update. rules
// are s's compiled CEL rules (nil: compiled for this call).
func (s Schema) Apply(u, old map[string]any, rules *Rules) field.ErrorList {
	errs, _ := s.Check(u, old, rules)
	return errs
}

// Check is Apply, also returning the warnings kube-apiserver sends for
// the CEL rules' failures that its ratcheting does not refuse on update.
func (s Schema) Check(u, old map[string]any, rules *Rules) (field.ErrorList, []string) {
	if s == nil {
		return nil, nil
	}
	// apiVersion, kind and metadata are the server's, whatever the schema
	// says of them.
	s.pruneObject(u, true)
	s.setDefaults(u)
	var errs field.ErrorList
	if old == nil {
		errs = s.validate(u, nil)
	} else {
		errs = s.validateUpdate(u, old, false, nil)
	}
	if old == nil || len(s.listTypeErrors(old, nil)) == 0 {
		errs = append(errs, s.listTypeErrors(u, nil)...)
	}
	if rules == nil {
		rules = s.CompileRules()
	}
	if rules.err != nil {
		return append(errs, rules.compileErrors()...), nil
	}
	res := rules.v.Check(context.Background(), u, old)
	return append(errs, res.Errors...), res.Warnings
}

// compileErrors reports rules that do not compile as kube-apiserver
// would on each write: "rule compile error" at the rule's schema.
func (r *Rules) compileErrors() field.ErrorList {
	var errs field.ErrorList
	for _, e := range flatten(r.err) {
		var ce *celeval.CompileError
		if !errors.As(e, &ce) {
			errs = append(errs, field.InternalError(nil, e))
			continue
		}
		var at *field.Path
		if ce.Path != "" {
			at = field.NewPath(ce.Path)
		}
		errs = append(errs, field.Invalid(at, "object", "rule compile error: "+ce.Detail))
	}
	return errs
}

func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func (s Schema) props() map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

func (s Schema) sub(v any) Schema {
	m, _ := v.(map[string]any)
	return Schema(m)
}

func (s Schema) flag(name string) bool {
	b, _ := s[name].(bool)
	return b
}

func (s Schema) typ() string {
	t, _ := s["type"].(string)
	return t
}

// pruneObject drops the fields of the object u that the schema does not
// know, at every level where unknown fields are not preserved. root keeps
// apiVersion, kind and metadata (also kept by an embedded resource).
func (s Schema) pruneObject(u map[string]any, root bool) {
	props := s.props()
	add := s.sub(s["additionalProperties"])
	preserve := s.flag("x-kubernetes-preserve-unknown-fields")
	keepMeta := root || s.flag("x-kubernetes-embedded-resource")
	for k, v := range u {
		if keepMeta && (k == "apiVersion" || k == "kind" || k == "metadata") {
			if ps, ok := props[k]; ok && k != "metadata" {
				s.sub(ps).prune(v)
			}
			continue
		}
		switch ps, ok := props[k]; {
		case ok:
			s.sub(ps).prune(v)
		case add != nil:
			add.prune(v)
		case !preserve:
			delete(u, k)
		}
	}
}

// prune prunes the value v, whatever its kind, against the schema.
func (s Schema) prune(v any) {
	if s == nil {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		if s.props() != nil || s["additionalProperties"] != nil || !s.flag("x-kubernetes-preserve-unknown-fields") || s.flag("x-kubernetes-embedded-resource") {
			s.pruneObject(t, false)
		}
	case []any:
		items := s.sub(s["items"])
		for _, e := range t {
			items.prune(e)
		}
	}
}

// setDefaults fills in, at every level of v present, the properties that
// are absent (or null without nullable) and have a default.
func (s Schema) setDefaults(v any) {
	if s == nil {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, ps := range s.props() {
			p := s.sub(ps)
			cur, ok := t[k]
			if ok && cur == nil && !p.flag("nullable") {
				delete(t, k)
				ok = false
			}
			if !ok {
				if d, has := p["default"]; has {
					t[k] = runtime.DeepCopyJSONValue(d)
				}
			}
			if c, ok := t[k]; ok {
				p.setDefaults(c)
			}
		}
		if add := s.sub(s["additionalProperties"]); add != nil {
			for k, c := range t {
				if _, known := s.props()[k]; !known {
					add.setDefaults(c)
				}
			}
		}
	case []any:
		items := s.sub(s["items"])
		for _, e := range t {
			items.setDefaults(e)
		}
	}
}

// validate checks v against the schema, at path.
func (s Schema) validate(v any, path *field.Path) field.ErrorList {
	return s.check(v, path, nil)
}

// ratchet is how an update's value is checked against its old value:
// the errors of a value equal to the old one that corresponds to it are
// dropped, as kube-apiserver's validation ratcheting does (it turns them
// into warnings).
type ratchet struct {
	// old is the old value corresponding to the value checked (nil: none).
	old any
	// inherited is whether the nearest ancestor with an old value is
	// unchanged, for a value without one.
	inherited bool
}

// validateUpdate checks v, whose old value is old (nil: none), with
// kube-apiserver's ratcheting (celeval.Unchanged, celeval.OldItem): a
// value's own errors are dropped when it, or for a value with no
// corresponding old value (an item of a set or atomic list) its nearest
// ancestor that has one, equals its old value.
func (s Schema) validateUpdate(v, old any, inherited bool, path *field.Path) field.ErrorList {
	return s.check(v, path, &ratchet{old: old, inherited: inherited})
}

// check is validate with an update's ratcheting (r nil: none).
func (s Schema) check(v any, path *field.Path, r *ratchet) field.ErrorList {
	if s == nil {
		return nil
	}
	own := r != nil && r.inherited
	if r != nil && r.old != nil {
		own = celeval.Unchanged(s, v, r.old)
	}
	errs := s.checkValue(v, path, r, own)
	if own {
		return nil
	}
	return errs
}

// child is the ratcheting of a child of the value checked under r: its
// old value and whether this value is unchanged.
func child(r *ratchet, old any, unchanged bool) *ratchet {
	if r == nil {
		return nil
	}
	return &ratchet{old: old, inherited: unchanged}
}

// checkValue checks v and its children (an unchanged v's children are
// unchanged too: their errors are dropped with v's).
func (s Schema) checkValue(v any, path *field.Path, r *ratchet, unchanged bool) field.ErrorList {
	var errs field.ErrorList
	if v == nil {
		if !s.flag("nullable") && s.typ() != "" {
			errs = append(errs, field.TypeInvalid(path, "null", fmt.Sprintf("%s in body must be of type %s: \"null\"", pathName(path), s.typ())))
		}
		return errs
	}
	if s.flag("x-kubernetes-int-or-string") {
		switch v.(type) {
		case int64, float64, string:
		default:
			errs = append(errs, field.TypeInvalid(path, jsonType(v), fmt.Sprintf("%s in body must be of type integer or string: %q", pathName(path), jsonType(v))))
			return errs
		}
	} else if t := s.typ(); t != "" && !hasType(v, t) {
		return append(errs, field.TypeInvalid(path, jsonType(v), fmt.Sprintf("%s in body must be of type %s: %q", pathName(path), t, jsonType(v))))
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, v) }) {
		var vals []string
		for _, e := range enum {
			vals = append(vals, fmt.Sprintf("%v", e))
		}
		errs = append(errs, field.NotSupported(path, v, vals))
	}
	switch t := v.(type) {
	case map[string]any:
		errs = append(errs, s.validateObject(t, path, r, unchanged)...)
	case []any:
		errs = append(errs, s.validateArray(t, path, r, unchanged)...)
	case string:
		errs = append(errs, s.validateString(t, path)...)
	case int64:
		errs = append(errs, s.validateNumber(float64(t), v, path)...)
	case float64:
		errs = append(errs, s.validateNumber(t, v, path)...)
	}
	return errs
}

func (s Schema) validateObject(t map[string]any, path *field.Path, r *ratchet, unchanged bool) field.ErrorList {
	var errs field.ErrorList
	req, _ := s["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if _, ok := t[name]; !ok && name != "" {
			errs = append(errs, field.Required(path.Child(name), ""))
		}
	}
	if s.flag("x-kubernetes-embedded-resource") {
		// kube-apiserver checks an embedded resource's type as it checks a
		// resource's own.
		for _, k := range []string{"apiVersion", "kind"} {
			if v, _ := t[k].(string); v == "" {
				errs = append(errs, field.Required(path.Child(k), "must not be empty"))
			}
		}
	}
	if n, ok := number(s["minProperties"]); ok && float64(len(t)) < n {
		errs = append(errs, field.Invalid(path, len(t), fmt.Sprintf("%s in body should have at least %v properties", pathName(path), n)))
	}
	if n, ok := number(s["maxProperties"]); ok && float64(len(t)) > n {
		errs = append(errs, field.TooMany(path, len(t), int(n)))
	}
	props := s.props()
	add := s.sub(s["additionalProperties"])
	var oldObj map[string]any
	if r != nil {
		oldObj, _ = r.old.(map[string]any)
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if path == nil && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		var old any
		if oldObj != nil {
			old = oldObj[k]
		}
		switch ps, ok := props[k]; {
		case ok:
			errs = append(errs, s.sub(ps).check(t[k], path.Child(k), child(r, old, unchanged))...)
		case add != nil:
			errs = append(errs, add.check(t[k], path.Child(k), child(r, old, unchanged))...)
		}
	}
	return errs
}

func (s Schema) validateArray(t []any, path *field.Path, r *ratchet, unchanged bool) field.ErrorList {
	var errs field.ErrorList
	if n, ok := number(s["minItems"]); ok && float64(len(t)) < n {
		errs = append(errs, field.Invalid(path, len(t), fmt.Sprintf("%s in body should have at least %v items", pathName(path), n)))
	}
	if n, ok := number(s["maxItems"]); ok && float64(len(t)) > n {
		errs = append(errs, field.TooMany(path, len(t), int(n)))
	}
	if s.flag("uniqueItems") {
		for i := range t {
			for j := range i {
				if jsonEqual(t[i], t[j]) {
					errs = append(errs, field.Duplicate(path.Index(i), t[i]))
				}
			}
		}
	}
	items := s.sub(s["items"])
	var oldList []any
	if r != nil {
		oldList, _ = r.old.([]any)
	}
	for i, e := range t {
		var old any
		if oldList != nil {
			old = celeval.OldItem(s, e, oldList)
		}
		errs = append(errs, items.check(e, path.Index(i), child(r, old, unchanged))...)
	}
	return errs
}

func (s Schema) validateString(t string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := utf8.RuneCountInString(t)
	if m, ok := number(s["minLength"]); ok && float64(n) < m {
		errs = append(errs, field.Invalid(path, t, fmt.Sprintf("%s in body should be at least %v chars long", pathName(path), m)))
	}
	if m, ok := number(s["maxLength"]); ok && float64(n) > m {
		errs = append(errs, field.TooLongMaxLength(path, t, int(m)))
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(t) {
			errs = append(errs, field.Invalid(path, t, fmt.Sprintf("%s in body should match '%s'", pathName(path), p)))
		}
	}
	return append(errs, s.formatErrors(t, path)...)
}

func (s Schema) validateNumber(f float64, v any, path *field.Path) field.ErrorList {
	errs := s.rangeErrors(f, path)
	if m, ok := number(s["minimum"]); ok {
		if s.flag("exclusiveMinimum") && f <= m {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("%s in body should be greater than %v", pathName(path), m)))
		} else if f < m {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("%s in body should be greater than or equal to %v", pathName(path), m)))
		}
	}
	if m, ok := number(s["maximum"]); ok {
		if s.flag("exclusiveMaximum") && f >= m {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("%s in body should be less than %v", pathName(path), m)))
		} else if f > m {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("%s in body should be less than or equal to %v", pathName(path), m)))
		}
	}
	if m, ok := number(s["multipleOf"]); ok && m > 0 {
		if q := f / m; q != math.Trunc(q) {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("%s in body should be a multiple of %v", pathName(path), m)))
		}
	}
	return errs
}

// hasType reports whether the JSON value v is of the schema type t.
func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		switch n := v.(type) {
		case int64:
			return true
		case float64:
			return n == math.Trunc(n) && !math.IsInf(n, 0)
		}
		return false
	case "number":
		switch v.(type) {
		case int64, float64:
			return true
		}
		return false
	}
	return true
}

// jsonType names the JSON type of v, as validation messages do.
func jsonType(v any) string {
	switch n := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		if n == math.Trunc(n) {
			return "integer"
		}
		return "number"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// jsonEqual compares two JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok || len(at) != len(bt) {
			return false
		}
		for k, v := range at {
			if w, ok := bt[k]; !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bt, ok := b.([]any)
		return ok && slices.EqualFunc(at, bt, jsonEqual)
	}
	return a == b
}

// pathName is the path as validation messages spell it ("spec.replicas";
// "body" for the root).
func pathName(p *field.Path) string {
	if p == nil {
		return "body"
	}
	return strings.TrimPrefix(p.String(), ".")
}
