package celeval

import (
	"fmt"
	"math"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityType is Kubernetes' kubernetes.Quantity, an opaque value.
var quantityType = types.NewOpaqueType("kubernetes.Quantity")

// quantityValue is a resource quantity in an expression.
type quantityValue struct{ q resource.Quantity }

func (v quantityValue) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.q).AssignableTo(t) {
		return v.q, nil
	}
	if reflect.TypeOf(&v.q).AssignableTo(t) {
		q := v.q.DeepCopy()
		return &q, nil
	}
	return nil, fmt.Errorf("type conversion error from kubernetes.Quantity to %v", t)
}

func (v quantityValue) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case quantityType:
		return v
	case types.TypeType:
		return quantityType
	case types.StringType:
		return types.String(v.q.String())
	}
	return types.NewErr("type conversion error from kubernetes.Quantity to %s", t)
}

func (v quantityValue) Equal(o ref.Val) ref.Val {
	w, ok := o.(quantityValue)
	return types.Bool(ok && v.q.Cmp(w.q) == 0)
}

func (v quantityValue) Type() ref.Type { return quantityType }
func (v quantityValue) Value() any     { return v.q }

func quantityOf(v ref.Val) (resource.Quantity, ref.Val) {
	q, ok := v.(quantityValue)
	if !ok {
		return resource.Quantity{}, types.MaybeNoSuchOverloadErr(v)
	}
	return q.q, nil
}

// quantityFunctions declares Kubernetes' quantity library: quantity,
// isQuantity, sign, isInteger, asInteger, asApproximateFloat, add, sub,
// isGreaterThan, isLessThan and compareTo.
func quantityFunctions() []cel.EnvOption {
	unary := func(name string, out *cel.Type, f func(resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name, []*cel.Type{quantityType}, out, cel.UnaryBinding(func(v ref.Val) ref.Val {
			q, err := quantityOf(v)
			if err != nil {
				return err
			}
			return f(q)
		})))
	}
	// both calls f with the two quantities of a quantity-quantity overload.
	both := func(f func(a, b resource.Quantity) ref.Val) func(a, b ref.Val) ref.Val {
		return func(a, b ref.Val) ref.Val {
			x, err := quantityOf(a)
			if err != nil {
				return err
			}
			y, err := quantityOf(b)
			if err != nil {
				return err
			}
			return f(x, y)
		}
	}
	binary := func(name string, out *cel.Type, f func(a, b resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name+"_quantity", []*cel.Type{quantityType, quantityType}, out, cel.BinaryBinding(both(f))))
	}
	arith := func(name string, sign int64) cel.EnvOption {
		apply := func(a, b resource.Quantity) ref.Val {
			out := a.DeepCopy()
			if sign > 0 {
				out.Add(b)
			} else {
				out.Sub(b)
			}
			return quantityValue{out}
		}
		return cel.Function(name,
			cel.MemberOverload("quantity_"+name+"_quantity", []*cel.Type{quantityType, quantityType}, quantityType, cel.BinaryBinding(both(apply))),
			cel.MemberOverload("quantity_"+name+"_int", []*cel.Type{quantityType, cel.IntType}, quantityType, cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				x, err := quantityOf(a)
				if err != nil {
					return err
				}
				n, ok := b.(types.Int)
				if !ok {
					return types.MaybeNoSuchOverloadErr(b)
				}
				return apply(x, *resource.NewQuantity(int64(n), resource.DecimalExponent))
			})))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, quantityType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			q, err := resource.ParseQuantity(string(s))
			if err != nil {
				return types.NewErr("%v", err)
			}
			return quantityValue{q}
		}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := resource.ParseQuantity(string(s))
			return types.Bool(err == nil)
		}))),
		unary("sign", cel.IntType, func(q resource.Quantity) ref.Val { return types.Int(q.Sign()) }),
		unary("isInteger", cel.BoolType, func(q resource.Quantity) ref.Val {
			_, ok := q.AsInt64()
			return types.Bool(ok)
		}),
		unary("asInteger", cel.IntType, func(q resource.Quantity) ref.Val {
			n, ok := q.AsInt64()
			if !ok {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(n)
		}),
		unary("asApproximateFloat", cel.DoubleType, func(q resource.Quantity) ref.Val {
			f := q.AsApproximateFloat64()
			if math.IsInf(f, 0) {
				return types.NewErr("quantity out of the range of a double")
			}
			return types.Double(f)
		}),
		arith("add", 1),
		arith("sub", -1),
		binary("isGreaterThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) > 0) }),
		binary("isLessThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) < 0) }),
		binary("compareTo", cel.IntType, func(a, b resource.Quantity) ref.Val { return types.Int(a.Cmp(b)) }),
	}
}
