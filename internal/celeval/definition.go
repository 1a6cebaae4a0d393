package celeval

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ExpressionCost is the estimated cost of one rule or message expression
// of a schema, as kube-apiserver weighs it against RuleCostLimit and
// SchemaCostLimit.
type ExpressionCost struct {
	// Path is where kube-apiserver reports the expression, under the
	// schema's own path: properties[spec].x-kubernetes-validations[0].rule.
	Path *field.Path
	// SchemaPath is the schema the rule is declared on, as a
	// *CompileError names it ("" for the root, "spec.items[*]").
	SchemaPath string
	// Expression is the expression's source.
	Expression string
	// PerCall is the estimated cost of one evaluation.
	PerCall uint64
	// Cardinality is how many values of its schema one object may hold:
	// the product of the maxItems and maxProperties above it, or, where one
	// of them is missing, as many as the largest request holds.
	Cardinality uint64
	// Unbounded lists the schemas whose sizes the estimate took from the
	// request size, each with the bound that would help: the lists and maps
	// above the rule without maxItems or maxProperties, and the lists,
	// maps and strings at and under the rule's schema without maxItems,
	// maxProperties or maxLength ("spec.tags (maxItems)").
	Unbounded []string
}

// Total is the expression's cost for one object: PerCall times
// Cardinality (capped at the largest uint64).
func (c ExpressionCost) Total() uint64 { return mulCapped(c.PerCall, c.Cardinality) }

// DefinitionCheck is the result of checking one version's schema as
// kube-apiserver does when a CustomResourceDefinition is written.
type DefinitionCheck struct {
	// Errors are kube-apiserver's errors for the rules: those that do not
	// compile, and the estimated cost limits exceeded, at their paths
	// under the schema's.
	Errors field.ErrorList
	// Costs are the estimated costs of every rule and message expression
	// that compiled.
	Costs []ExpressionCost
}

// CheckDefinition checks the x-kubernetes-validations of one version's
// structural schema (JSON form) as kube-apiserver does when a
// CustomResourceDefinition is created or updated. base is the schema's
// path (spec.versions[0].schema.openAPIV3Schema). A rule, message
// expression, field path or reason that does not compile is refused with
// kube-apiserver's words; so is an expression whose estimated cost times
// the number of values it may run on exceeds RuleCostLimit (unless
// perExpression is false, as kube-apiserver skips that limit for a schema
// an update leaves unchanged) and a schema whose costs add up to more than
// SchemaCostLimit.
func CheckDefinition(schema map[string]any, base *field.Path, perExpression bool) DefinitionCheck {
	c := &defCheck{perExpression: perExpression}
	c.walk(node(schema), base, "", 1, nil, true)
	if c.total > SchemaCostLimit {
		for _, e := range c.expensive {
			c.out.Errors = append(c.out.Errors, field.Forbidden(e.Path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.out.Errors = append(c.out.Errors, field.Forbidden(base, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, SchemaCostLimit)))
	}
	return c.out
}

type defCheck struct {
	perExpression bool
	out           DefinitionCheck
	total         uint64
	expensive     []ExpressionCost
}

// walk checks n's subschemas, then its own rules, in kube-apiserver's
// order (additionalProperties, properties, items, rules). card is how
// many values of n one object may hold; nil unbounded means card is exact.
func (c *defCheck) walk(n node, at *field.Path, schemaPath string, card uint64, unbounded []string, root bool) {
	if n == nil {
		return
	}
	childCard, childUnbounded := card, unbounded
	if m, ok := maxElements(n); ok {
		childCard = mulCapped(card, m)
	} else {
		bound := " (maxItems)"
		if n.str("type") == "object" {
			bound = " (maxProperties)"
		}
		childUnbounded = append(slices.Clip(unbounded), orRoot(schemaPath)+bound)
	}
	join := func(p string) string {
		if schemaPath == "" {
			return p
		}
		return schemaPath + "." + p
	}
	if add := n.child("additionalProperties"); add != nil {
		c.walk(add, at.Child("additionalProperties"), schemaPath+"[*]", childCard, childUnbounded, false)
	}
	props := n.props()
	for _, k := range slices.Sorted(maps.Keys(props)) {
		c.walk(node(asMap(props[k])), at.Child("properties").Key(k), join(k), childCard, childUnbounded, false)
	}
	if items := n.child("items"); items != nil {
		c.walk(items, at.Child("items"), schemaPath+"[*]", childCard, childUnbounded, false)
	}
	rules := rulesOf(n)
	if len(rules) == 0 {
		return
	}
	if errs := ruleShapeErrors(n, at, rules); len(errs) > 0 {
		// kube-apiserver compiles no rule of a schema with such errors.
		c.out.Errors = append(c.out.Errors, errs...)
		return
	}
	if unbounded != nil {
		// A schema of no type (kube-apiserver gives its value no CEL type)
		// is taken as one of the smallest values.
		minSize := int64(1)
		if sz := sizesOf(n, root || n.flag("x-kubernetes-embedded-resource")); sz != nil {
			minSize = sz.minSize
		}
		card = cardinalityFromSize(minSize)
	}
	unbounded = append(slices.Clip(unbounded), unboundedUnder(n, schemaPath)...)
	results := compileEach(n, schemaPath, root, rules, Options{})
	for i, r := range results {
		ruleAt := at.Child("x-kubernetes-validations").Index(i)
		value := ruleValue(rules[i])
		if r.err == nil || r.kind == "messageExpression" {
			c.observe(ExpressionCost{Path: ruleAt.Child("rule"), SchemaPath: schemaPath, Expression: rules[i].Rule, PerCall: r.cost, Cardinality: card, Unbounded: unbounded}, "estimated rule cost")
		}
		if r.err == nil && r.msg != nil {
			c.observe(ExpressionCost{Path: ruleAt.Child("messageExpression"), SchemaPath: schemaPath, Expression: rules[i].MessageExpression, PerCall: r.msgCost, Cardinality: card, Unbounded: unbounded}, "estimated messageExpression cost")
		}
		if r.err == nil {
			continue
		}
		ce, _ := r.err.(*CompileError)
		if ce == nil {
			c.out.Errors = append(c.out.Errors, field.InternalError(ruleAt, r.err))
			continue
		}
		switch r.kind {
		case "rule":
			detail := ce.Detail
			if ce.issues {
				detail = "compilation failed: " + detail
			}
			c.out.Errors = append(c.out.Errors, field.Invalid(ruleAt.Child("rule"), value, detail))
		case "messageExpression":
			detail := ce.Detail
			if ce.issues {
				detail = "messageExpression compilation failed: " + detail
			}
			c.out.Errors = append(c.out.Errors, field.Invalid(ruleAt.Child("messageExpression"), value, detail))
		case "fieldPath":
			c.out.Errors = append(c.out.Errors, field.Invalid(ruleAt.Child("fieldPath"), rules[i].FieldPath, "must be a valid path"))
		case "reason":
			c.out.Errors = append(c.out.Errors, field.NotSupported(ruleAt.Child("reason"), rules[i].Reason, []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}))
		default:
			c.out.Errors = append(c.out.Errors, field.InternalError(ruleAt, r.err))
		}
	}
}

// ruleShapeErrors are kube-apiserver's errors for rules that are not
// well formed, found before any is compiled.
func ruleShapeErrors(n node, at *field.Path, rules []Rule) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		ruleAt := at.Child("x-kubernetes-validations").Index(i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			errs = append(errs, field.Required(ruleAt.Child("rule"), "rule is not specified"))
		case r.Message != "" && msg == "":
			errs = append(errs, field.Invalid(ruleAt.Child("message"), r.Message, "must be non-empty if specified"))
		case strings.ContainsAny(msg, "\r\n"):
			errs = append(errs, field.Invalid(ruleAt.Child("message"), r.Message, "must not contain line breaks"))
		case strings.ContainsAny(rule, "\r\n") && msg == "":
			errs = append(errs, field.Required(ruleAt.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			errs = append(errs, field.Required(ruleAt.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		switch r.Reason {
		case "", "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate":
		default:
			errs = append(errs, field.NotSupported(ruleAt.Child("reason"), r.Reason, []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}))
		}
		if r.FieldPath != "" {
			if strings.TrimSpace(r.FieldPath) == "" {
				errs = append(errs, field.Invalid(ruleAt.Child("fieldPath"), r.FieldPath, "must be non-empty if specified"))
			}
			if strings.ContainsAny(r.FieldPath, "\r\n") {
				errs = append(errs, field.Invalid(ruleAt.Child("fieldPath"), r.FieldPath, "must not contain line breaks"))
			}
			if _, err := fieldPathIn(n, r.FieldPath); err != nil {
				errs = append(errs, field.Invalid(ruleAt.Child("fieldPath"), r.FieldPath, "must be a valid path"))
			}
		}
	}
	return errs
}

// unboundedUnder lists the schemas at and under n whose size the
// estimator takes from the request size: lists without maxItems, maps
// without maxProperties, strings without maxLength (or enum).
func unboundedUnder(n node, path string) []string {
	var out []string
	var walk func(n node, path string)
	walk = func(n node, path string) {
		if n == nil {
			return
		}
		_, hasLen := intOf(n["maxLength"])
		switch n.str("type") {
		case "array":
			if _, ok := intOf(n["maxItems"]); !ok {
				out = append(out, orRoot(path)+" (maxItems)")
			}
			walk(n.child("items"), path+"[*]")
		case "object":
			if add := n.child("additionalProperties"); add != nil {
				if _, ok := intOf(n["maxProperties"]); !ok {
					out = append(out, orRoot(path)+" (maxProperties)")
				}
				walk(add, path+"[*]")
			}
			props := n.props()
			for _, k := range slices.Sorted(maps.Keys(props)) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(node(asMap(props[k])), p)
			}
		case "string":
			switch n.str("format") {
			case "duration", "date", "date-time":
				return
			}
			if !hasLen && len(asSlice(n["enum"])) == 0 {
				out = append(out, orRoot(path)+" (maxLength)")
			}
		}
		if n.flag("x-kubernetes-int-or-string") && !hasLen {
			out = append(out, orRoot(path)+" (maxLength)")
		}
	}
	walk(n, path)
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "<root>"
	}
	return p
}

// observe counts one expression's cost, refusing it above RuleCostLimit.
func (c *defCheck) observe(e ExpressionCost, name string) {
	total := e.Total()
	c.out.Costs = append(c.out.Costs, e)
	if c.perExpression && total > RuleCostLimit {
		c.out.Errors = append(c.out.Errors, field.Forbidden(e.Path, costMessage(name, total, RuleCostLimit)))
	}
	if ^uint64(0)-c.total < total {
		c.total = ^uint64(0)
	} else {
		c.total += total
	}
	// kube-apiserver names the four most expensive expressions of at least
	// 1% of the schema's limit when the total is exceeded.
	if total < SchemaCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, e)
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].Total() > c.expensive[j].Total() })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}

// costMessage is kube-apiserver's message for an estimated cost over its
// limit.
func costMessage(name string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, factor)
}

// ruleValue is a rule as kube-apiserver shows it in an error: its
// internal form, in JSON.
func ruleValue(r Rule) json.RawMessage {
	type shown struct {
		Rule              string
		Message           string
		MessageExpression string
		Reason            *string
		FieldPath         string
		OptionalOldSelf   *bool
	}
	v := shown{Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression, FieldPath: r.FieldPath}
	if r.Reason != "" {
		v.Reason = &r.Reason
	}
	if r.OptionalOldSelf {
		t := true
		v.OptionalOldSelf = &t
	}
	b, _ := json.Marshal(v)
	return b
}
