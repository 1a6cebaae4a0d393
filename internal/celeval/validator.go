package celeval

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rule is one entry of a schema's x-kubernetes-validations.
type Rule struct {
	Rule              string
	Message           string
	MessageExpression string
	// Reason is FieldValueInvalid ("" too), FieldValueForbidden,
	// FieldValueRequired or FieldValueDuplicate.
	Reason string
	// FieldPath, relative to the schema (".spec.name", ".labels['a.b']"),
	// is where a failure is reported.
	FieldPath       string
	OptionalOldSelf bool
}

// rulesOf reads the x-kubernetes-validations of a schema in JSON form.
func rulesOf(n node) []Rule {
	raw, _ := n["x-kubernetes-validations"].([]any)
	out := make([]Rule, 0, len(raw))
	for _, r := range raw {
		m := node(asMap(r))
		out = append(out, Rule{
			Rule: m.str("rule"), Message: m.str("message"), MessageExpression: m.str("messageExpression"),
			Reason: m.str("reason"), FieldPath: m.str("fieldPath"), OptionalOldSelf: m.flag("optionalOldSelf"),
		})
	}
	return out
}

// Validator evaluates the x-kubernetes-validations rules of every level of
// one structural schema. It is safe for concurrent use.
type Validator struct {
	root *vnode
	opts Options
}

// vnode is one schema of the tree and its compiled rules.
type vnode struct {
	typ        string
	rules      []compiled
	props      map[string]*vnode
	additional *vnode
	items      *vnode
	mapKeys    []string
	schema     node
	root       bool
}

type compiled struct {
	rule      Rule
	prg       cel.Program
	msg       cel.Program
	usesOld   bool
	fieldPath string
}

// New compiles every rule of the structural schema (a CRD version's
// openAPIV3Schema in JSON form). The error joins one *CompileError per
// rule, message expression or field path that does not compile; a schema
// without rules gives a Validator that accepts everything.
func New(schema map[string]any, opts Options) (*Validator, error) {
	var errs []error
	root := build(node(schema), "", true, opts, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Validator{root: root, opts: opts}, nil
}

// build compiles the rules of n and of every schema under it; it returns
// nil for a tree without rules.
func build(n node, path string, root bool, opts Options, errs *[]error) *vnode {
	if n == nil {
		return nil
	}
	v := &vnode{typ: n.str("type"), schema: n, root: root}
	has := false
	if rules := rulesOf(n); len(rules) > 0 {
		v.rules = compileRules(n, path, root, rules, opts, errs)
		has = true
	}
	join := func(p string) string {
		if path == "" {
			return p
		}
		return path + "." + p
	}
	for k, ps := range n.props() {
		if c := build(node(asMap(ps)), join(k), false, opts, errs); c != nil {
			if v.props == nil {
				v.props = map[string]*vnode{}
			}
			v.props[k] = c
			has = true
		}
	}
	if c := build(n.child("additionalProperties"), path+"[*]", false, opts, errs); c != nil {
		v.additional, has = c, true
	}
	if c := build(n.child("items"), path+"[*]", false, opts, errs); c != nil {
		v.items, has = c, true
	}
	if n.str("x-kubernetes-list-type") == "map" {
		for _, k := range asSlice(n["x-kubernetes-list-map-keys"]) {
			if s, ok := k.(string); ok {
				v.mapKeys = append(v.mapKeys, s)
			}
		}
	}
	if !has {
		return nil
	}
	return v
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	if s == nil {
		if ss, ok := v.([]string); ok {
			for _, e := range ss {
				s = append(s, e)
			}
		}
	}
	return s
}

func compileRules(n node, path string, root bool, rules []Rule, opts Options, errs *[]error) []compiled {
	var out []compiled
	for _, r := range compileEach(n, path, root, rules, opts) {
		if r.err != nil {
			*errs = append(*errs, r.err)
			continue
		}
		out = append(out, r.compiled)
	}
	return out
}

// ruleResult is one rule compiled, or why it is not.
type ruleResult struct {
	compiled
	// err is the first *CompileError of the rule, its message expression,
	// field path or reason.
	err error
	// kind says which part err is of: "rule", "messageExpression",
	// "fieldPath", "reason" or "" (the environment).
	kind string
	// cost and msgCost are the estimated costs of one evaluation of the
	// rule and of its message expression.
	cost, msgCost uint64
}

// compileEach compiles each of rules against the schema n and estimates
// its cost.
func compileEach(n node, path string, root bool, rules []Rule, opts Options) []ruleResult {
	out := make([]ruleResult, len(rules))
	failAll := func(err error) []ruleResult {
		for i := range out {
			out[i].err = &CompileError{Path: path, Detail: err.Error()}
		}
		return out
	}
	base, err := baseEnv()
	if err != nil {
		return failAll(err)
	}
	p := &provider{base: base.CELTypeProvider(), objects: map[string]map[string]*types.Type{}}
	name := "object"
	if path != "" {
		name += "." + path
	}
	self := typeBuilder{p}.celType(n, name, root)
	env, err := base.Extend(cel.CustomTypeProvider(p), cel.Variable("self", self), cel.Variable("oldSelf", self))
	if err != nil {
		return failAll(err)
	}
	optEnv, err := base.Extend(cel.CustomTypeProvider(p), cel.Variable("self", self), cel.Variable("oldSelf", cel.OptionalType(self)))
	if err != nil {
		return failAll(err)
	}
	est := &estimator{root: sizesOf(n, root || n.flag("x-kubernetes-embedded-resource"))}
	for i, r := range rules {
		res := &out[i]
		res.rule = r
		fail := func(kind, detail string) {
			res.kind, res.err = kind, &CompileError{Path: path, Expression: r.Rule, Detail: detail}
		}
		e := env
		if r.OptionalOldSelf {
			e = optEnv
		}
		prg, ast, err := compileIn(e, r.Rule, path, cel.BoolType, opts, nil)
		if err != nil {
			res.kind, res.err = "rule", err
			continue
		}
		if !ast.OutputType().IsExactType(cel.BoolType) {
			// kube-apiserver wants a rule typed bool, not dyn.
			fail("rule", mustEvaluate(cel.BoolType))
			continue
		}
		res.prg, res.usesOld = prg, references(ast, "oldSelf")
		if c, err := e.EstimateCost(ast, est); err == nil {
			res.cost = c.Max
		}
		if r.MessageExpression != "" {
			msg, mast, err := compileIn(e, r.MessageExpression, path, cel.StringType, opts, nil)
			if err == nil && !mast.OutputType().IsExactType(cel.StringType) {
				err = &CompileError{Path: path, Expression: r.MessageExpression, Detail: mustEvaluate(cel.StringType)}
			}
			if err != nil {
				res.kind, res.err = "messageExpression", err
				continue
			}
			res.msg = msg
			if c, err := e.EstimateCost(mast, est); err == nil {
				res.msgCost = c.Max
			}
		}
		if r.FieldPath != "" {
			fp, err := fieldPathIn(n, r.FieldPath)
			if err != nil {
				fail("fieldPath", "fieldPath "+r.FieldPath+": "+err.Error())
				continue
			}
			res.fieldPath = fp
		}
		switch r.Reason {
		case "", "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate":
		default:
			fail("reason", "reason "+r.Reason+" is not one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate")
			continue
		}
	}
	return out
}

// fieldPathIn checks a rule's fieldPath (".a.b", ".a['b.c']") names a
// property under n and returns it as kube-apiserver appends it to the
// rule's path: without its leading dot.
func fieldPathIn(n node, fp string) (string, error) {
	rest := fp
	cur := n
	for rest != "" {
		var name string
		switch {
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest[2:], "']")
			if end < 0 {
				return "", errors.New("unterminated ['")
			}
			name, rest = rest[2:2+end], rest[2+end+2:]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name, rest = rest[:end], rest[end:]
		default:
			return "", fmt.Errorf("unexpected %q", rest)
		}
		if name == "" {
			return "", errors.New("empty field name")
		}
		next, ok := cur.props()[name]
		if !ok {
			if add := cur.child("additionalProperties"); add != nil {
				cur = add
				continue
			}
			return "", fmt.Errorf("field %s is not in the schema", name)
		}
		cur = node(asMap(next))
	}
	return strings.TrimPrefix(fp, "."), nil
}

// Validate evaluates the rules against obj, the custom resource as JSON
// (after pruning and defaulting). old is the object an update replaces
// (nil on create): transition rules, those reading oldSelf, run only
// where an old value corresponds (unless the rule's oldSelf is optional),
// and the failures of the other rules are ratcheted as kube-apiserver
// ratchets them (see Check). The errors are worded and placed as
// kube-apiserver's.
func (v *Validator) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	return v.Check(ctx, obj, old).Errors
}

// Result is what Check found.
type Result struct {
	// Errors are the failures that refuse the write.
	Errors field.ErrorList
	// Warnings are the failures kube-apiserver ratchets on an update: it
	// sends them as warnings and accepts the write.
	Warnings []string
}

// Check is Validate, with the failures kube-apiserver ratchets on an
// update given apart as warnings: those of a rule that does not read
// oldSelf on a value equal to its old one, the value being one that
// corresponds to an old value (a property or map value present in both,
// an item of a map list with the same keys) or, for one that does not
// (an item of a set or atomic list), its nearest such ancestor. Equality
// is kube-apiserver's: map lists pair items by key, other lists compare in
// order, and an object holding a field its schema does not declare is
// never equal.
func (v *Validator) Check(ctx context.Context, obj, old map[string]any) Result {
	if v == nil || v.root == nil {
		return Result{}
	}
	var oldV any
	if old != nil {
		oldV = old
	}
	w := &walk{ctx: ctx, budget: v.opts.budget()}
	w.node(v.root, nil, obj, oldV, false)
	return Result{Errors: w.errs, Warnings: w.warnings}
}

type walk struct {
	ctx      context.Context
	budget   int64
	errs     field.ErrorList
	warnings []string
	done     bool
}

// node checks the value val of the schema n at path. old is the
// corresponding old value (nil: none); inherited is whether the nearest
// ancestor with an old value is unchanged.
func (w *walk) node(n *vnode, path *field.Path, val, old any, inherited bool) {
	if w.done || n == nil || val == nil {
		return
	}
	ratchet := inherited
	if old != nil {
		ratchet = unchanged(n.schema, val, old)
	}
	w.rules(n, path, val, old, ratchet)
	switch t := val.(type) {
	case map[string]any:
		om, _ := old.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(t)) {
			o, r := lookup(om, k), ratchet
			if n.root && (k == "apiVersion" || k == "kind") {
				o, r = nil, false
			}
			if c, ok := n.props[k]; ok {
				w.node(c, path.Child(k), t[k], o, r)
			} else if n.additional != nil {
				w.node(n.additional, path.Key(k), t[k], o, r)
			}
		}
	case []any:
		ol, _ := old.([]any)
		for i, e := range t {
			w.node(n.items, path.Index(i), e, correlate(n.mapKeys, e, ol), ratchet)
		}
	}
}

// unchanged is kube-apiserver's equality of a value with its old one for
// ratcheting (Check).
func unchanged(n node, val, old any) bool {
	switch v := val.(type) {
	case nil:
		return old == nil
	case []any:
		o, ok := old.([]any)
		if !ok || len(o) != len(v) {
			return false
		}
		if n.str("x-kubernetes-list-type") != "map" {
			return reflect.DeepEqual(v, o)
		}
		var keys []string
		for _, k := range asSlice(n["x-kubernetes-list-map-keys"]) {
			if s, ok := k.(string); ok {
				keys = append(keys, s)
			}
		}
		items := n.child("items")
		for _, e := range v {
			oe := correlate(keys, e, o)
			if oe == nil || !unchanged(items, e, oe) {
				return false
			}
		}
		return true
	case map[string]any:
		o, ok := old.(map[string]any)
		if !ok || len(o) != len(v) {
			return false
		}
		props, add := n.props(), n.child("additionalProperties")
		for k, e := range v {
			oe, ok := o[k]
			if !ok {
				return false
			}
			var sub node
			if ps, known := props[k]; known {
				sub = node(asMap(ps))
			} else if add != nil {
				sub = add
			} else {
				return false
			}
			if !unchanged(sub, e, oe) {
				return false
			}
		}
		return true
	}
	if _, isMap := old.(map[string]any); isMap {
		return false
	}
	if _, isList := old.([]any); isList {
		return false
	}
	return reflect.DeepEqual(val, old)
}

func lookup(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

// correlate finds the old item of a map list with the keys of e.
func correlate(keys []string, e any, old []any) any {
	em, ok := e.(map[string]any)
	if len(keys) == 0 || !ok {
		return nil
	}
	for _, o := range old {
		om, ok := o.(map[string]any)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(keys, func(k string) bool { return !jsonEqual(em[k], om[k]) }) {
			return o
		}
	}
	return nil
}

func jsonEqual(a, b any) bool {
	return fmt.Sprintf("%#v", dynValue(a)) == fmt.Sprintf("%#v", dynValue(b))
}

func (w *walk) invalid(path *field.Path, typ, detail string) {
	w.errs = append(w.errs, field.Invalid(path, typ, detail))
}

func (w *walk) rules(n *vnode, path *field.Path, val, old any, ratchet bool) {
	if len(n.rules) == 0 {
		return
	}
	if w.budget <= 0 {
		w.invalid(path, n.typ, "validation failed due to running out of cost budget, no further validation rules will be run")
		w.done = true
		return
	}
	self := value(n.schema, val, n.root)
	var oldSelf any
	if old != nil {
		oldSelf = value(n.schema, old, n.root)
	}
	for _, c := range n.rules {
		vars := map[string]any{"self": self}
		switch {
		case c.rule.OptionalOldSelf:
			if oldSelf != nil {
				vars["oldSelf"] = types.OptionalOf(types.DefaultTypeAdapter.NativeToValue(oldSelf))
			} else {
				vars["oldSelf"] = types.OptionalNone
			}
		case c.usesOld && oldSelf == nil:
			continue
		case c.usesOld:
			vars["oldSelf"] = oldSelf
		}
		r := eval(w.ctx, c.prg, vars)
		if !w.spend(path, n.typ, r.cost) {
			return
		}
		desc := ruleDesc(c.rule)
		if r.err != nil {
			switch msg := r.err.Error(); {
			case strings.HasPrefix(msg, "no such overload"):
				w.invalid(path, n.typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", r.err, desc))
			case isCostError(r.err):
				w.invalid(path, n.typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", r.err, desc))
				w.done = true
				return
			default:
				w.invalid(path, n.typ, fmt.Sprintf("%v evaluating rule: %v", r.err, desc))
			}
			continue
		}
		if r.val == types.True {
			continue
		}
		at := path
		if c.fieldPath != "" {
			at = path.Child(c.fieldPath)
		}
		detail, ok := "", false
		if c.msg != nil {
			detail, ok = w.message(c, at, n.typ, vars)
			if w.done {
				return
			}
		}
		if !ok {
			detail = "failed rule: " + desc
			if m := strings.TrimSpace(c.rule.Message); m != "" {
				detail = m
			}
		}
		var shown any = val
		if n.typ == "object" || n.typ == "array" {
			shown = field.OmitValueType{}
		}
		var fe *field.Error
		switch c.rule.Reason {
		case "FieldValueForbidden":
			fe = field.Forbidden(at, detail)
		case "FieldValueRequired":
			fe = field.Required(at, detail)
		case "FieldValueDuplicate":
			fe = field.Duplicate(at, shown)
		default:
			fe = field.Invalid(at, shown, detail)
		}
		if ratchet && !c.usesOld {
			// kube-apiserver's ratcheting: a value left as it was.
			w.warnings = append(w.warnings, fe.Error())
			continue
		}
		w.errs = append(w.errs, fe)
	}
}

// spend takes cost from the budget; false (with the error added) when the
// budget is spent.
func (w *walk) spend(path *field.Path, typ string, cost uint64) bool {
	if cost > uint64(w.budget) {
		w.invalid(path, typ, "validation failed due to running out of cost budget, no further validation rules will be run")
		w.done = true
		return false
	}
	w.budget -= int64(cost)
	return true
}

// message evaluates a rule's messageExpression; ok false falls back to
// the rule's message, as kube-apiserver does when it fails.
func (w *walk) message(c compiled, at *field.Path, typ string, vars map[string]any) (string, bool) {
	r := eval(w.ctx, c.msg, vars)
	if !w.spend(at, typ, r.cost) {
		return "", false
	}
	if isCostError(r.err) {
		w.invalid(at, typ, fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", c.rule.MessageExpression))
		w.done = true
		return "", false
	}
	if r.err != nil {
		return "", false
	}
	s, ok := r.val.(types.String)
	if !ok {
		return "", false
	}
	msg := strings.TrimSpace(string(s))
	if msg == "" || strings.Contains(msg, "\n") || len(msg) > 5*1024 {
		return "", false
	}
	return msg, true
}

func ruleDesc(r Rule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return strings.TrimSpace(r.Rule)
}

var _ ref.Val = urlValue{}

// CompileRules compiles rules as declared on one schema (JSON form),
// without the rules of the schemas under it. root says the schema is a
// custom resource's root, where self also has apiVersion, kind and
// metadata.name/generateName. The error joins one *CompileError per rule
// that does not compile.
func CompileRules(schema map[string]any, rules []Rule, root bool) error {
	var errs []error
	compileRules(node(schema), "", root, rules, Options{}, &errs)
	return errors.Join(errs...)
}

// Unchanged reports whether val equals old as kube-apiserver's ratcheting
// compares them (see Validator.Check), schema being their structural
// schema in JSON form.
func Unchanged(schema map[string]any, val, old any) bool { return unchanged(node(schema), val, old) }

// OldItem returns the item of old, a list of the schema (JSON form), that
// corresponds to item for ratcheting: for a list of
// x-kubernetes-list-type map, the one with the same keys; nil for other
// lists, whose items correspond to none.
func OldItem(schema map[string]any, item any, old []any) any {
	n := node(schema)
	if n.str("x-kubernetes-list-type") != "map" {
		return nil
	}
	var keys []string
	for _, k := range asSlice(n["x-kubernetes-list-map-keys"]) {
		if s, ok := k.(string); ok {
			keys = append(keys, s)
		}
	}
	return correlate(keys, item, old)
}
