package apply

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The two runs of a set function: the object it is given is filled with
// values that differ between the runs at every field it can reach, so a
// field holds equal values after both runs exactly when the function set
// it.
const (
	runA = 0
	runB = 1
)

// unsetKey is the key of the entry a map is given before a set function
// runs: every map the function can reach is non-nil, so it may add keys.
const unsetKey = "kubego.io/unset"

var unsetStrings = [2]string{"kubego-unset-a", "kubego-unset-b"}

// leafFill returns the value a leaf of type t holds in run, and false when
// t has no such value (a leaf type this package does not know is left
// zero in both runs: it is owned when the function sets it to a non-zero
// value).
func leafFill(t reflect.Type, run int) (reflect.Value, bool) {
	var v any
	switch t {
	case quantityType:
		v = *resource.NewQuantity(int64(3+2*run), resource.DecimalSI)
	case intOrStringType:
		if run == runA {
			v = intstr.FromInt32(3)
		} else {
			v = intstr.FromString(unsetStrings[run])
		}
	case metaTimeType:
		v = metav1.Unix(int64(3+2*run), 0)
	case microTimeType:
		v = metav1.NewMicroTime(time.Unix(int64(3+2*run), 0))
	case timeType:
		v = time.Unix(int64(3+2*run), 0).UTC()
	case durationType:
		v = metav1.Duration{Duration: time.Duration(3+2*run) * time.Second}
	default:
		return reflect.Value{}, false
	}
	return reflect.ValueOf(v), true
}

// fill sets the settable value v (of a zero value) to the values of run;
// visiting holds the struct types being filled, so a recursive type stops
// at its first repetition (a nil pointer there).
func (ty *Type[T]) fill(v reflect.Value, run int, visiting map[reflect.Type]bool) {
	t := v.Type()
	leaf, known := ty.leaves[t]
	if !known {
		leaf = isLeaf(t)
	}
	if leaf {
		if lv, ok := leafFill(t, run); ok {
			v.Set(lv)
		}
		return
	}
	if fillScalar(v, run) {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if visiting[t.Elem()] {
			return
		}
		p := reflect.New(t.Elem())
		ty.fill(p.Elem(), run, visiting)
		v.Set(p)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMapWithSize(t, 1)
		e := reflect.New(t.Elem()).Elem()
		ty.fill(e, run, visiting)
		m.SetMapIndex(reflect.ValueOf(unsetKey).Convert(t.Key()), e)
		v.Set(m)
	case reflect.Struct:
		visiting[t] = true
		for _, f := range ty.fields[t] {
			ty.fill(v.FieldByIndex(f.index), run, visiting)
		}
		delete(visiting, t)
	}
	// Slices stay nil: a set function assigns or appends to a list, and
	// the elements it puts there are its own in both runs. Interfaces and
	// arrays stay zero.
}

// fillScalar sets v to the placeholder of run when v is a bool, number or
// string, and reports whether it was one.
func fillScalar(v reflect.Value, run int) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(run == runB)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(3 + 2*run))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(3 + 2*run))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(3+2*run) + 0.5)
	case reflect.String:
		v.SetString(unsetStrings[run])
	default:
		return false
	}
	return true
}
