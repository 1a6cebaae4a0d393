package celeval

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// The estimated cost limits kube-apiserver applies when a
// CustomResourceDefinition is written.
const (
	// RuleCostLimit bounds the estimated cost of one rule (or message
	// expression) times the number of values it may run on.
	RuleCostLimit uint64 = 10_000_000
	// SchemaCostLimit bounds the sum of those costs over one version's
	// schema.
	SchemaCostLimit uint64 = 100_000_000
	// MaxRequestBytes is the request size kube-apiserver accepts; a list,
	// map or string without a declared bound is estimated to be as large
	// as fits in it.
	MaxRequestBytes int64 = 3 * 1024 * 1024
)

// Serialized sizes kube-apiserver assumes for values of each kind.
const (
	minStringSize   = 2  // ""
	minBoolSize     = 4  // true
	minNumberSize   = 1  // 0
	minDurationSize = 3  // "0s"
	maxDurationSize = 32 // the longest duration kube-apiserver formats
	dateSize        = 12 // "2006-01-02" quoted
	minDateTimeSize = 21 // "2006-01-02T15:04:05Z" quoted
	maxDateTimeSize = 32 // with nanoseconds and an offset
)

// sizes is what the estimator knows of the values of one schema: the
// most elements (list items, map entries, string bytes) they may have and
// the fewest bytes one of them takes in JSON.
type sizes struct {
	fields  map[string]*sizes // by escaped name
	elem    *sizes            // list items, map values
	key     *sizes            // map keys
	maxElem int64
	minSize int64
}

// sizesOf estimates the sizes of the values of n the way kube-apiserver
// does: a declared maxItems, maxProperties or maxLength (a string's
// length counted as 4 bytes a character) bounds them, else as many as the
// largest request holds given the smallest size of one element. root
// (and an embedded resource) adds apiVersion, kind and metadata.name and
// generateName, unbounded strings.
func sizesOf(n node, root bool) *sizes {
	if n == nil {
		return nil
	}
	if n.flag("x-kubernetes-int-or-string") {
		s := &sizes{minSize: 1}
		if ml, ok := intOf(n["maxLength"]); ok {
			s.maxElem = nonNegative(ml) * 4
		} else {
			s.maxElem = MaxRequestBytes - 2
		}
		return s
	}
	switch n.str("type") {
	case "array":
		items := n.child("items")
		if items == nil {
			return nil
		}
		it := sizesOf(items, items.flag("x-kubernetes-embedded-resource"))
		if it == nil {
			return nil
		}
		s := &sizes{elem: it, minSize: 2}
		if mi, ok := intOf(n["maxItems"]); ok {
			s.maxElem = nonNegative(mi)
		} else {
			s.maxElem = (MaxRequestBytes - 2) / (it.minSize + 1)
		}
		return s
	case "object":
		if add := n.child("additionalProperties"); add != nil {
			v := sizesOf(add, add.flag("x-kubernetes-embedded-resource"))
			if v == nil {
				return nil
			}
			s := &sizes{elem: v, key: &sizes{minSize: minStringSize}, minSize: 2}
			if mp, ok := intOf(n["maxProperties"]); ok {
				s.maxElem = nonNegative(mp)
			} else {
				s.maxElem = (MaxRequestBytes - 2) / (v.minSize + 6)
			}
			return s
		}
		s := &sizes{fields: map[string]*sizes{}, minSize: 2}
		required := map[string]bool{}
		for _, r := range asSlice(n["required"]) {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
		for name, p := range n.props() {
			pn := node(asMap(p))
			f := sizesOf(pn, pn.flag("x-kubernetes-embedded-resource"))
			if f == nil {
				continue
			}
			if esc, ok := Escape(name); ok {
				s.fields[esc] = f
			}
			if _, hasDefault := pn["default"]; required[name] && !hasDefault {
				s.minSize += int64(len(name)) + f.minSize + 4
			}
		}
		if root || n.flag("x-kubernetes-embedded-resource") {
			str := func() *sizes { return &sizes{minSize: minStringSize, maxElem: MaxRequestBytes - 2} }
			for _, k := range []string{"apiVersion", "kind"} {
				if _, ok := s.fields[k]; !ok {
					s.fields[k] = str()
				}
			}
			s.fields["metadata"] = &sizes{minSize: 2, fields: map[string]*sizes{"name": str(), "generateName": str()}}
		}
		return s
	case "string":
		switch n.str("format") {
		case "byte":
			s := &sizes{minSize: minStringSize, maxElem: MaxRequestBytes - 2}
			if ml, ok := intOf(n["maxLength"]); ok {
				s.maxElem = nonNegative(ml)
			}
			return s
		case "duration":
			return &sizes{minSize: minDurationSize, maxElem: maxDurationSize}
		case "date":
			return &sizes{minSize: dateSize, maxElem: dateSize}
		case "date-time":
			return &sizes{minSize: minDateTimeSize, maxElem: maxDateTimeSize}
		}
		s := &sizes{minSize: minStringSize}
		switch ml, ok := intOf(n["maxLength"]); {
		case ok:
			s.maxElem = nonNegative(ml) * 4
		case len(asSlice(n["enum"])) > 0:
			for _, e := range asSlice(n["enum"]) {
				if str, ok := e.(string); ok && int64(len(str)) > s.maxElem {
					s.maxElem = int64(len(str))
				}
			}
		default:
			s.maxElem = MaxRequestBytes - 2
		}
		return s
	case "boolean":
		return &sizes{minSize: minBoolSize}
	case "number", "integer":
		return &sizes{minSize: minNumberSize}
	}
	return nil
}

func nonNegative(v int64) int64 { return max(v, 0) }

// intOf reads a JSON integer (int64, float64, int).
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n >= math.MinInt64 && n <= math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}

// maxElements is how many values of a schema one object may hold, as
// kube-apiserver bounds it: one for an object's property, maxItems for a
// list's items and maxProperties for a map's values; ok false when a list
// or map has no bound.
func maxElements(n node) (uint64, bool) {
	switch n.str("type") {
	case "object":
		if n.child("additionalProperties") == nil {
			return 1, true
		}
		if mp, ok := intOf(n["maxProperties"]); ok {
			return uint64(nonNegative(mp)), true
		}
		return 0, false
	case "array":
		if mi, ok := intOf(n["maxItems"]); ok {
			return uint64(nonNegative(mi)), true
		}
		return 0, false
	}
	return 1, true
}

// cardinalityFromSize is how many values of the smallest serialized size
// minSize fit in the largest request.
func cardinalityFromSize(minSize int64) uint64 {
	return uint64(MaxRequestBytes / (minSize + 1))
}

// mulCapped multiplies without overflow, capping at the largest uint64.
func mulCapped(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

// estimator estimates the cost of an expression over one schema's values,
// with the call costs of Kubernetes' CEL libraries.
type estimator struct {
	root *sizes
}

var (
	_ checker.CostEstimator           = (*estimator)(nil)
	_ interpreter.ActualCostEstimator = (*estimator)(nil)
)

// EstimateSize follows the node's path (a variable, then fields, @items,
// @keys, @values) through the schema's sizes.
func (e *estimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	path := n.Path()
	if len(path) == 0 || e == nil || e.root == nil {
		return nil
	}
	cur := e.root
	for _, p := range path[1:] {
		switch p {
		case "@items", "@values":
			cur = cur.elem
		case "@keys":
			cur = cur.key
		default:
			cur = cur.fields[p]
		}
		if cur == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.maxElem)}
}

func (e *estimator) size(n checker.AstNode) checker.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := e.EstimateSize(n); s != nil {
		return *s
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// elemNode is the element of a list node, for size lookups.
type elemNode struct {
	path []string
	t    *types.Type
}

func (n elemNode) Path() []string                      { return n.path }
func (n elemNode) Type() *types.Type                   { return n.t }
func (n elemNode) Expr() ast.Expr                      { return nil }
func (n elemNode) ComputedSize() *checker.SizeEstimate { return nil }

func elementOf(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	var path []string
	if p := list.Path(); p != nil {
		path = append(append(path, p...), "@items")
	}
	return elemNode{path: path, t: params[0]}
}

const (
	traversal = common.StringTraversalCostFactor
	regexLen  = common.RegexStringLengthCostFactor
)

func fixed(c uint64) *checker.CallEstimate {
	return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: c, Max: c}}
}

// EstimateCallCost gives the estimated cost of the Kubernetes library
// functions kube-apiserver estimates itself (nil: cel-go's own estimate).
func (e *estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		if target == nil {
			return nil
		}
		per := checker.CostEstimate{Min: 1, Max: 1}
		if el := elementOf(*target); el != nil {
			if k := el.Type().Kind(); k == types.StringKind || k == types.BytesKind {
				per = per.Add(e.size(el).MultiplyByCostFactor(traversal))
			}
			return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCost(per)}
		}
		if function == "includes" {
			return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCost(per)}
		}
		return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCostFactor(traversal)}
	case "url":
		if len(args) == 1 {
			sz := e.size(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := e.size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return e.replaceCost(*target, args[0], args[1])
		}
	case "split":
		if target != nil {
			sz := e.size(*target)
			most := sz.Max
			if len(args) > 1 {
				if lit := args[1].Expr().AsLiteral(); lit != nil {
					if i, ok := lit.Value().(int64); ok {
						most = uint64(i)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * traversal), ResultSize: &checker.SizeEstimate{Min: 0, Max: most}}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			n := e.size(*target)
			if el := elementOf(*target); el != nil {
				sz = n.Multiply(e.size(el))
			}
			if len(args) > 0 {
				var seps checker.SizeEstimate
				if n.Min > 0 {
					seps.Min = n.Min - 1
				}
				if n.Max > 0 {
					seps.Max = n.Max - 1
				}
				sz = sz.Add(e.size(args[0]).Multiply(seps))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := e.size(*target)
			str := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(traversal)
			re := e.size(args[0]).MultiplyByCostFactor(regexLen)
			return &checker.CallEstimate{CostEstimate: str.Multiply(re), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.size(args[0]).MultiplyByCostFactor(traversal)}
		}
	case "validate":
		// Which format is not known before evaluation: each is estimated
		// at the largest regular expression size.
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.size(args[0]).MultiplyByCostFactor(traversal).MultiplyByCostFactor(maxFormatRegexSize * regexLen)}
		}
	case "format.named":
		return fixed(1)
	case "ip":
		if overloadID == "cidr_ip" {
			return fixed(1)
		}
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.size(args[0]).MultiplyByCostFactor(traversal)}
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.size(args[0]).MultiplyByCostFactor(2 * traversal)}
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
		"major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return fixed(1)
	case "containsIP", "containsCIDR":
		if len(args) >= 1 {
			ipSize := checker.SizeEstimate{Min: 4, Max: 16}
			c := ipSize.Add(ipSize).MultiplyByCostFactor(traversal)
			if function == "containsCIDR" {
				c = c.Add(ipSize.MultiplyByCostFactor(traversal)).Add(checker.CostEstimate{Min: 1, Max: 1})
			}
			if overloadID == "cidr_contains_ip_string" || overloadID == "cidr_contains_cidr_string" {
				c = c.Add(checker.CostEstimate(e.size(args[0])).MultiplyByCostFactor(traversal))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "_==_":
		if len(args) == 2 && args[0].Type().IsExactType(args[1].Type()) {
			switch args[0].Type().TypeName() {
			case quantityType.TypeName(), ext.IPType.TypeName(), ext.CIDRType.TypeName(), semverType.TypeName():
				return fixed(1)
			case formatType.TypeName():
				return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: maxFormatSize}.MultiplyByCostFactor(traversal)}
			case urlType.TypeName():
				sz := checker.SizeEstimate{Min: 1, Max: 1}
				if r := args[1].ComputedSize(); r != nil {
					sz = r.Union(*r)
				}
				return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: sz.Max}.MultiplyByCostFactor(traversal)}
			}
		}
	}
	return nil
}

func (e *estimator) replaceCost(target, old, repl checker.AstNode) *checker.CallEstimate {
	sz, oldSz, replSz := e.size(target), e.size(old), e.size(repl)
	var count, kept checker.SizeEstimate
	switch {
	case oldSz.Min == 0:
		count.Max = sz.Max
		if sz.Max < math.MaxUint64 {
			count.Max++
		}
		kept.Max = sz.Max
	case replSz.Max <= oldSz.Min:
		kept.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(oldSz.Min)))
	}
	switch {
	case oldSz.Max == 0:
		count.Min = sz.Min
		if sz.Min < math.MaxUint64 {
			count.Min++
		}
		kept.Min = sz.Min
	case oldSz.Max <= replSz.Min:
		kept.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(oldSz.Max)))
	}
	result := count.Multiply(replSz).Add(kept)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * traversal), ResultSize: &result}
}

// actualSize is the size of a value that has one (strings, bytes, lists,
// maps), else 1.
func actualSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n >= 0 {
			return uint64(n)
		}
	}
	return 1
}

// traversalCost is the cost of walking a value as a tree: a tenth of each
// string's bytes, 1 for each other leaf.
func traversalCost(v ref.Val) uint64 {
	switch t := v.(type) {
	case types.String:
		return uint64(float64(len(t)) * traversal)
	case types.Bytes:
		return uint64(float64(len(t)) * traversal)
	case traits.Lister:
		var c uint64
		for it := t.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		var c uint64
		for it := t.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(t.Get(k))
		}
		return c
	}
	return 1
}

func ceilCost(f float64) *uint64 {
	c := uint64(math.Ceil(f))
	return &c
}

// CallCost is the runtime cost of a call of a Kubernetes library function,
// as kube-apiserver counts it (nil: cel-go's own count). The arguments of
// a member function start with its target.
func (e *estimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	one := func() *uint64 { c := uint64(1); return &c }
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		var c uint64
		if len(args) > 0 {
			c = traversalCost(args[0])
		}
		return &c
	case "url", "lowerAscii", "upperAscii", "substring", "trim":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * traversal)
		}
	case "replace", "split":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * 2 * traversal)
		}
	case "join":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(result)) * 2 * traversal)
		}
	case "find", "findAll":
		if len(args) >= 2 {
			str := uint64(math.Ceil((1 + float64(actualSize(args[0]))) * traversal))
			re := uint64(math.Ceil(float64(actualSize(args[1])) * regexLen))
			c := str * re
			return &c
		}
	case "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * traversal)
		}
	case "validate":
		// The string's traversal times the format's regular expression
		// size, as a regular expression match is counted.
		if len(args) >= 2 {
			if f, ok := args[0].(formatValue); ok {
				str := uint64(math.Ceil((1 + float64(actualSize(args[1]))) * traversal))
				re := uint64(math.Ceil(float64(f.f.regexSize) * regexLen))
				c := str * re
				return &c
			}
		}
	case "format.named":
		return one()
	case "ip":
		if len(args) >= 1 {
			if overloadID == "cidr_ip" {
				return one()
			}
			return ceilCost(float64(actualSize(args[0])) * traversal)
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return ceilCost(float64(actualSize(args[0])) * 2 * traversal)
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
		"major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return one()
	case "containsIP", "containsCIDR":
		if len(args) >= 2 {
			cidr, other := actualSize(args[0]), actualSize(args[1])
			c := uint64(math.Ceil(float64(cidr+cidr) * traversal))
			if function == "containsCIDR" {
				c += uint64(math.Ceil(float64(cidr)*traversal)) + 1
			}
			if overloadID == "cidr_contains_ip_string" || overloadID == "cidr_contains_cidr_string" {
				c += uint64(math.Ceil(float64(other) * traversal))
			}
			return &c
		}
	case "_==_":
		if len(args) == 2 && args[0].Type() != nil {
			switch args[0].Type().TypeName() {
			case quantityType.TypeName(), urlType.TypeName(), ext.IPType.TypeName(), ext.CIDRType.TypeName(), semverType.TypeName(), formatType.TypeName():
				return one()
			}
		}
	}
	return nil
}
