// Package celeval compiles and evaluates CEL expressions the way
// kube-apiserver does for CustomResourceDefinition validation rules
// (x-kubernetes-validations) and admission webhook matchConditions.
//
// A rule is compiled against the structural schema it is declared on:
// self (and oldSelf for a transition rule) is typed by that schema —
// objects with their declared properties (escaped as kube-apiserver
// escapes them), maps, lists, int-or-string and objects that keep unknown
// fields as dyn — so a reference to an unknown field, a syntax error, a
// type error or a call of an unknown function is a *CompileError.
//
// The environment is kube-apiserver's: the standard macros and functions,
// has(), optional types, cross-type numeric comparisons, the strings
// extension (version 2), sets, two-variable comprehensions, the lists
// extension (version 3), ip and cidr, and Kubernetes' list functions
// (isSorted, sum, min, max, indexOf, lastIndexOf), regex find/findAll,
// url, quantity, semver (with normalization) and format. Kubernetes'
// authorizer library is not declared: kube-apiserver offers it to
// admission expressions, not to CRD rules; a webhook condition using it
// fails to compile with a *CompileError whose Unsupported names it.
//
// Every evaluation is bounded by a cost limit (Options.PerCallLimit) and
// all the rules of one object by a budget (Options.Budget), so a hostile
// rule ends with a cost error instead of running on; the Kubernetes
// library functions cost what kube-apiserver counts for them.
//
// Values are typed as kube-apiserver types them: lists of
// x-kubernetes-list-type set and map compare with == regardless of order
// and concatenate with + as sets and keyed maps. On update the failures of
// values left as they were are ratcheted (Validator.Check).
//
// CheckDefinition checks a definition's rules as kube-apiserver does when
// a CustomResourceDefinition is written: rules that do not compile, and
// estimated costs (cel-go's estimator with kube-apiserver's sizes: the
// declared maxItems, maxProperties and maxLength, else what fits in the
// largest request) over RuleCostLimit for one rule or SchemaCostLimit for
// a schema, each with kube-apiserver's message and path.
package celeval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// Default limits, kube-apiserver's: the cost of one evaluation and of
// all the rules of one object.
const (
	DefaultPerCallLimit uint64 = 1_000_000
	DefaultBudget       int64  = 10_000_000
)

// ErrCostLimit is wrapped by the error of an evaluation stopped by its
// cost limit.
var ErrCostLimit = errors.New("celeval: cost limit exceeded")

// CompileError is an expression that does not compile.
type CompileError struct {
	// Path is the schema path of the rule ("" for the root, "spec.items[*]").
	Path string
	// Expression is the expression's source.
	Expression string
	// Unsupported names the variable of a Kubernetes CEL library that
	// kube-apiserver offers to the expression and this package does not
	// (authorizer, in a webhook's matchConditions), when that is the
	// cause.
	Unsupported string
	// Detail is the compiler's message.
	Detail string
	// issues is true when Detail is the compiler's list of issues (not a
	// wrong result type, field path or reason).
	issues bool
}

func (e *CompileError) Error() string {
	at := ""
	if e.Path != "" {
		at = " at " + e.Path
	}
	return fmt.Sprintf("celeval: %q%s: %s", e.Expression, at, e.Detail)
}

// Options bound evaluations. The zero value uses kube-apiserver's limits.
type Options struct {
	// PerCallLimit is the cost one evaluation may spend (0:
	// DefaultPerCallLimit).
	PerCallLimit uint64
	// Budget is the cost all the rules of one object may spend together (0:
	// DefaultBudget).
	Budget int64
}

func (o Options) perCall() uint64 {
	if o.PerCallLimit == 0 {
		return DefaultPerCallLimit
	}
	return o.PerCallLimit
}

func (o Options) budget() int64 {
	if o.Budget == 0 {
		return DefaultBudget
	}
	return o.Budget
}

// baseEnv is the environment every expression starts from. It is built
// once and never changed: each compilation extends it.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		// has() costs nothing, as in kube-apiserver's estimates.
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		ext.Lists(ext.ListsVersion(3)),
		ext.Network(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
	}
	opts = append(opts, listFunctions()...)
	opts = append(opts, regexFunctions()...)
	opts = append(opts, urlFunctions()...)
	opts = append(opts, quantityFunctions()...)
	opts = append(opts, semverFunctions()...)
	opts = append(opts, formatFunctions()...)
	opts = append(opts, authzSignatures()...)
	return cel.NewEnv(opts...)
})

// compileIn compiles src in env and checks its result type is want. A
// reference to one of the names of missing (kube-apiserver's functions and
// variables this package does not offer in env) is reported as such.
func compileIn(env *cel.Env, src, path string, want *cel.Type, opts Options, missing map[string]string) (cel.Program, *cel.Ast, error) {
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		detail := iss.Err().Error()
		ce := &CompileError{Path: path, Expression: src, Detail: detail, issues: true}
		if i := strings.Index(detail, "undeclared reference to '"); i >= 0 {
			name, _, _ := strings.Cut(detail[i+len("undeclared reference to '"):], "'")
			if lib, ok := missing[name]; ok {
				ce.Unsupported = name
				ce.Detail = fmt.Sprintf("function %s of Kubernetes' %s library is not supported: %s", name, lib, detail)
			}
		}
		return nil, nil, ce
	}
	if got := ast.OutputType(); !got.IsExactType(want) && !got.IsExactType(cel.DynType) {
		return nil, nil, &CompileError{Path: path, Expression: src, Detail: mustEvaluate(want)}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(opts.perCall()),
		cel.InterruptCheckFrequency(100),
		cel.EvalOptions(cel.OptOptimize),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		// The Kubernetes library functions cost what kube-apiserver counts.
		cel.CostTracking(&estimator{}),
	)
	if err != nil {
		return nil, nil, &CompileError{Path: path, Expression: src, Detail: err.Error()}
	}
	return prg, ast, nil
}

// mustEvaluate is kube-apiserver's message for an expression of another
// result type than want.
func mustEvaluate(want *cel.Type) string {
	if want.IsExactType(cel.StringType) {
		return "messageExpression must evaluate to a string"
	}
	return "cel expression must evaluate to a bool"
}

// references reports whether the checked expression reads the variable name.
func references(ast *cel.Ast, name string) bool {
	for _, r := range ast.NativeRep().ReferenceMap() {
		if r.Name == name {
			return true
		}
	}
	return false
}

// evalResult is one evaluation: its value, cost, and error.
type evalResult struct {
	val  ref.Val
	cost uint64
	err  error
}

func eval(ctx context.Context, prg cel.Program, vars any) evalResult {
	val, det, err := prg.ContextEval(ctx, vars)
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	return evalResult{val, cost, err}
}

func isCostError(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded")
}

// Expr is a compiled boolean expression over untyped variables, as a
// webhook's matchConditions are.
type Expr struct {
	src string
	prg cel.Program
}

// CompileExpr compiles a boolean expression that reads the variables vars,
// each of any type (dyn). An expression naming another variable, or that
// does not evaluate to bool, is a *CompileError.
func CompileExpr(src string, vars []string, opts Options) (*Expr, error) {
	base, err := baseEnv()
	if err != nil {
		return nil, err
	}
	decls := make([]cel.EnvOption, 0, len(vars))
	for _, v := range vars {
		decls = append(decls, cel.Variable(v, cel.DynType))
	}
	env, err := base.Extend(decls...)
	if err != nil {
		return nil, err
	}
	prg, _, err := compileIn(env, src, "", cel.BoolType, opts, admissionOnly)
	if err != nil {
		return nil, err
	}
	return &Expr{src: src, prg: prg}, nil
}

// EvalError is an expression that failed to evaluate.
type EvalError struct {
	Expression string
	Err        error
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("celeval: evaluating %q: %v", e.Expression, e.Err)
}

func (e *EvalError) Unwrap() error { return e.Err }

// Eval evaluates the expression with vars (JSON values: maps, lists,
// strings, numbers, booleans, nil). An error is an *EvalError; one that
// ran out of cost wraps ErrCostLimit.
func (e *Expr) Eval(ctx context.Context, vars map[string]any) (bool, error) {
	in := make(map[string]any, len(vars))
	for k, v := range vars {
		in[k] = dynValue(v)
	}
	r := eval(ctx, e.prg, in)
	switch {
	case isCostError(r.err):
		return false, &EvalError{Expression: e.src, Err: fmt.Errorf("%w: %v", ErrCostLimit, r.err)}
	case r.err != nil:
		return false, &EvalError{Expression: e.src, Err: r.err}
	}
	b, ok := r.val.(types.Bool)
	if !ok {
		return false, &EvalError{Expression: e.src, Err: fmt.Errorf("evaluated to %s, not bool", r.val.Type())}
	}
	return bool(b), nil
}
