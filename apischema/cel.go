package apischema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubego/kubego/internal/celeval"
)

// celRules checks declared CEL rules as kube-apiserver does: each
// compiled against the schema it is declared on, and the estimated costs
// of all of them held to kube-apiserver's limits on the whole schema.
type celRules struct{}

// Compile compiles the CEL of rules declared on s (their self typed by s)
// and returns why the first that does not compile fails ("" if all
// compile).
func (celRules) Compile(s *Schema, vs []Validation, root bool) string {
	rules := make([]celeval.Rule, len(vs))
	for i, v := range vs {
		rules[i] = celeval.Rule{
			Rule: v.Rule, Message: v.Message, MessageExpression: v.MessageExpression,
			Reason: v.Reason, FieldPath: v.FieldPath, OptionalOldSelf: v.OptionalOldSelf != nil && *v.OptionalOldSelf,
		}
	}
	err := celeval.CompileRules(s.Object(), rules, root)
	if err == nil {
		return ""
	}
	var ce *celeval.CompileError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	for i, v := range vs {
		if v.Rule == ce.Expression || v.MessageExpression == ce.Expression {
			return "rule " + strconv.Itoa(i) + " does not compile: " + ce.Detail
		}
	}
	return "a rule does not compile: " + ce.Detail
}

// CompileSchema compiles every rule inside a schema declared whole.
func (celRules) CompileSchema(s *Schema) string {
	_, err := celeval.New(s.Object(), celeval.Options{})
	if err == nil {
		return ""
	}
	var ce *celeval.CompileError
	if errors.As(err, &ce) {
		return "a rule at " + pathOrRoot(ce.Path) + " does not compile: " + ce.Detail
	}
	return err.Error()
}

func pathOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// Costs refuses a schema whose CEL rules kube-apiserver would refuse for
// their estimated cost when the CustomResourceDefinition is written: one
// rule (or message expression) above celeval.RuleCostLimit, or all of
// them together above celeval.SchemaCostLimit. The reason names the
// estimate, the limit and the bounds (maxItems, maxLength, maxProperties)
// missing where the estimate took sizes from the largest request.
func (celRules) Costs(s *Schema) (path, expression, reason string) {
	check := celeval.CheckDefinition(s.Object(), nil, true)
	var total uint64
	var worst celeval.ExpressionCost
	for _, c := range check.Costs {
		if c.Total() > celeval.RuleCostLimit {
			return costReason(c, fmt.Sprintf("estimated cost %d (%d per evaluation, on up to %d values) exceeds kube-apiserver's limit of %d for one rule",
				c.Total(), c.PerCall, c.Cardinality, celeval.RuleCostLimit))
		}
		if c.Total() > worst.Total() {
			worst = c
		}
		total = addCapped(total, c.Total())
	}
	if total > celeval.SchemaCostLimit {
		return costReason(worst, fmt.Sprintf("the rules' estimated costs add up to %d, over kube-apiserver's limit of %d for one schema; this rule, the most expensive, costs %d (%d per evaluation, on up to %d values)",
			total, celeval.SchemaCostLimit, worst.Total(), worst.PerCall, worst.Cardinality))
	}
	return "", "", ""
}

func addCapped(a, b uint64) uint64 {
	if ^uint64(0)-a < b {
		return ^uint64(0)
	}
	return a + b
}

// costReason completes the reason a rule's cost c is refused with what
// would lower it, and returns it with the rule's schema path and
// expression.
func costReason(c celeval.ExpressionCost, reason string) (path, expression, full string) {
	if len(c.Unbounded) > 0 {
		reason += "; the estimate takes the size of these from kube-apiserver's largest request: " + strings.Join(c.Unbounded, ", ") + "; declaring those bounds where the rule reads lowers it"
	} else {
		reason += "; simplify the rule or lower the declared bounds"
	}
	return c.SchemaPath, c.Expression, reason
}
