package apischema

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kubego/kubego/internal/celeval"
)

// owner is the Go type, and field of it, a schema was built from.
type owner struct {
	t     reflect.Type
	field string
}

// checkCosts refuses a schema whose CEL rules kube-apiserver would refuse
// for their estimated cost when the CustomResourceDefinition is written:
// one rule (or message expression) above celeval.RuleCostLimit, or all of
// them together above celeval.SchemaCostLimit. The *DeclarationError names
// the Go type and field the rule was declared on, the estimate, the limit
// and the bounds (maxItems, maxLength, maxProperties) missing where the
// estimate took sizes from the largest request.
func checkCosts(s *Schema, root reflect.Type, owners map[string]owner) error {
	check := celeval.CheckDefinition(s.Object(), nil, true)
	var total uint64
	var worst celeval.ExpressionCost
	for _, c := range check.Costs {
		if c.Total() > celeval.RuleCostLimit {
			return costError(c, root, owners, fmt.Sprintf("estimated cost %d (%d per evaluation, on up to %d values) exceeds kube-apiserver's limit of %d for one rule",
				c.Total(), c.PerCall, c.Cardinality, celeval.RuleCostLimit))
		}
		if c.Total() > worst.Total() {
			worst = c
		}
		total = addCapped(total, c.Total())
	}
	if total > celeval.SchemaCostLimit {
		return costError(worst, root, owners, fmt.Sprintf("the rules' estimated costs add up to %d, over kube-apiserver's limit of %d for one schema; this rule, the most expensive, costs %d (%d per evaluation, on up to %d values)",
			total, celeval.SchemaCostLimit, worst.Total(), worst.PerCall, worst.Cardinality))
	}
	return nil
}

func addCapped(a, b uint64) uint64 {
	if ^uint64(0)-a < b {
		return ^uint64(0)
	}
	return a + b
}

func costError(c celeval.ExpressionCost, root reflect.Type, owners map[string]owner, reason string) error {
	if len(c.Unbounded) > 0 {
		reason += "; the estimate takes the size of these from kube-apiserver's largest request: " + strings.Join(c.Unbounded, ", ") + "; declaring those bounds where the rule reads lowers it"
	} else {
		reason += "; simplify the rule or lower the declared bounds"
	}
	o, ok := owners[c.SchemaPath]
	if !ok || o.t == nil {
		o = owner{t: root, field: c.SchemaPath}
	}
	return &DeclarationError{Type: o.t, Field: o.field, Declaration: c.Expression, Reason: reason}
}
