package celeval

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listFunctions declares Kubernetes' list functions: isSorted, sum, min,
// max, indexOf and lastIndexOf (an element or a sublist), each for the
// element types kube-apiserver declares it for.
func listFunctions() []cel.EnvOption {
	comparable := []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType, cel.StringType, cel.BytesType, cel.DurationType, cel.TimestampType}
	summable := map[*cel.Type]ref.Val{cel.IntType: types.Int(0), cel.UintType: types.Uint(0), cel.DoubleType: types.Double(0), cel.DurationType: types.Duration{}}
	var sorted, sum, mins, maxs, index, last []cel.FunctionOpt
	for _, t := range comparable {
		lt := cel.ListType(t)
		id := "list_" + t.String()
		sorted = append(sorted, cel.MemberOverload(id+"_is_sorted", []*cel.Type{lt}, cel.BoolType, cel.UnaryBinding(isSorted)))
		mins = append(mins, cel.MemberOverload(id+"_min", []*cel.Type{lt}, t, cel.UnaryBinding(func(v ref.Val) ref.Val { return extreme(v, "min", -1) })))
		maxs = append(maxs, cel.MemberOverload(id+"_max", []*cel.Type{lt}, t, cel.UnaryBinding(func(v ref.Val) ref.Val { return extreme(v, "max", 1) })))
		if zero, ok := summable[t]; ok {
			sum = append(sum, cel.MemberOverload(id+"_sum", []*cel.Type{lt}, t, cel.UnaryBinding(func(v ref.Val) ref.Val { return sumOf(v, zero) })))
		}
	}
	for _, t := range comparable {
		lt := cel.ListType(t)
		id := "list_" + t.String()
		index = append(index,
			cel.MemberOverload(id+"_index_of", []*cel.Type{lt, t}, cel.IntType, cel.BinaryBinding(func(l, e ref.Val) ref.Val { return indexOf(l, e, false) })),
			cel.MemberOverload(id+"_index_of_list", []*cel.Type{lt, lt}, cel.IntType, cel.BinaryBinding(func(l, s ref.Val) ref.Val { return indexOfList(l, s, false) })))
		last = append(last,
			cel.MemberOverload(id+"_last_index_of", []*cel.Type{lt, t}, cel.IntType, cel.BinaryBinding(func(l, e ref.Val) ref.Val { return indexOf(l, e, true) })),
			cel.MemberOverload(id+"_last_index_of_list", []*cel.Type{lt, lt}, cel.IntType, cel.BinaryBinding(func(l, s ref.Val) ref.Val { return indexOfList(l, s, true) })))
	}
	return []cel.EnvOption{
		cel.Function("isSorted", sorted...),
		cel.Function("sum", sum...),
		cel.Function("min", mins...),
		cel.Function("max", maxs...),
		cel.Function("indexOf", index...),
		cel.Function("lastIndexOf", last...),
	}
}

func elements(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(v)
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, types.NewErr("list size is not an int")
	}
	out := make([]ref.Val, 0, int(n))
	for i := types.Int(0); i < n; i++ {
		out = append(out, l.Get(i))
	}
	return out, nil
}

func compare(a, b ref.Val) (int, ref.Val) {
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r := c.Compare(b)
	n, ok := r.(types.Int)
	if !ok {
		return 0, r
	}
	return int(n), nil
}

func isSorted(v ref.Val) ref.Val {
	es, err := elements(v)
	if err != nil {
		return err
	}
	for i := 1; i < len(es); i++ {
		c, err := compare(es[i-1], es[i])
		if err != nil {
			return err
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

func extreme(v ref.Val, name string, sign int) ref.Val {
	es, err := elements(v)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return types.NewErr("%s called on empty list", name)
	}
	best := es[0]
	for _, e := range es[1:] {
		c, err := compare(e, best)
		if err != nil {
			return err
		}
		if c*sign > 0 {
			best = e
		}
	}
	return best
}

func sumOf(v ref.Val, zero ref.Val) ref.Val {
	es, err := elements(v)
	if err != nil {
		return err
	}
	acc := zero
	for _, e := range es {
		a, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		acc = a.Add(e)
		if types.IsError(acc) {
			return acc
		}
	}
	return acc
}

func indexOf(l, e ref.Val, last bool) ref.Val {
	es, err := elements(l)
	if err != nil {
		return err
	}
	found := -1
	for i, x := range es {
		if x.Equal(e) == types.True {
			found = i
			if !last {
				break
			}
		}
	}
	return types.Int(found)
}

func indexOfList(l, s ref.Val, last bool) ref.Val {
	es, err := elements(l)
	if err != nil {
		return err
	}
	sub, err := elements(s)
	if err != nil {
		return err
	}
	found := -1
	for i := 0; i+len(sub) <= len(es); i++ {
		match := true
		for j := range sub {
			if es[i+j].Equal(sub[j]) != types.True {
				match = false
				break
			}
		}
		if match {
			found = i
			if !last {
				break
			}
		}
	}
	return types.Int(found)
}

// regexFunctions declares Kubernetes' find and findAll on strings.
func regexFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(func(s, p ref.Val) ref.Val {
				re, err := regexOf(p)
				if err != nil {
					return err
				}
				return types.String(re.FindString(string(s.(types.String))))
			}))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, p ref.Val) ref.Val { return findAll(s, p, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}
}

func regexOf(p ref.Val) (*regexp.Regexp, ref.Val) {
	ps, ok := p.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(p)
	}
	re, err := regexp.Compile(string(ps))
	if err != nil {
		return nil, types.NewErr("invalid regular expression %q: %v", string(ps), err)
	}
	return re, nil
}

func findAll(s, p, n ref.Val) ref.Val {
	re, err := regexOf(p)
	if err != nil {
		return err
	}
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	limit, ok := n.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(n)
	}
	if limit == 0 {
		return types.NewStringList(types.DefaultTypeAdapter, []string{})
	}
	return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(string(str), int(limit)))
}

// urlType is Kubernetes' kubernetes.URL, an opaque value.
var urlType = types.NewOpaqueType("kubernetes.URL")

// urlValue is a parsed URL in an expression.
type urlValue struct{ u *url.URL }

func (v urlValue) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.u).AssignableTo(t) {
		return v.u, nil
	}
	return nil, fmt.Errorf("type conversion error from kubernetes.URL to %v", t)
}

func (v urlValue) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case urlType:
		return v
	case types.TypeType:
		return urlType
	case types.StringType:
		return types.String(v.u.String())
	}
	return types.NewErr("type conversion error from kubernetes.URL to %s", t)
}

func (v urlValue) Equal(o ref.Val) ref.Val {
	w, ok := o.(urlValue)
	return types.Bool(ok && v.u.String() == w.u.String())
}

func (v urlValue) Type() ref.Type { return urlType }
func (v urlValue) Value() any     { return v.u }

// parseURL parses as kube-apiserver's url() does: an absolute URI or an
// absolute path.
func parseURL(s string) (*url.URL, error) {
	return url.ParseRequestURI(s)
}

func urlFunctions() []cel.EnvOption {
	method := func(name string, out *cel.Type, f func(*url.URL) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("url_"+name, []*cel.Type{urlType}, out, cel.UnaryBinding(func(v ref.Val) ref.Val {
			u, ok := v.(urlValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return f(u.u)
		})))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			u, err := parseURL(string(s))
			if err != nil {
				return types.NewErr("URL parse error during conversion from string: %v", err)
			}
			return urlValue{u}
		}))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := parseURL(string(s))
			return types.Bool(err == nil)
		}))),
		method("getScheme", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Scheme) }),
		method("getHost", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Host) }),
		method("getHostname", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Hostname()) }),
		method("getPort", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.Port()) }),
		method("getEscapedPath", cel.StringType, func(u *url.URL) ref.Val { return types.String(u.EscapedPath()) }),
		method("getQuery", cel.MapType(cel.StringType, cel.ListType(cel.StringType)), func(u *url.URL) ref.Val {
			q := map[string][]string(u.Query())
			return types.DefaultTypeAdapter.NativeToValue(q)
		}),
	}
}

// admissionOnly are the names kube-apiserver offers to admission
// expressions (a webhook's matchConditions) that this package does not
// implement, by library. CRD rules have none of them on kube-apiserver
// either, so there a reference to one is an unknown name like any other.
var admissionOnly = map[string]string{
	"authorizer": "authz",
}
