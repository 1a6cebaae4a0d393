package celeval

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// setList is the value of a list of x-kubernetes-list-type set: as in
// kube-apiserver, == ignores the order of its items and + adds only the
// items it lacks.
type setList struct {
	traits.Lister
}

// mapList is the value of a list of x-kubernetes-list-type map: as in
// kube-apiserver, == pairs items by their keys whatever their order, and
// + replaces the items whose keys the other list has and adds the others.
type mapList struct {
	traits.Lister
	keys []string // escaped names of x-kubernetes-list-map-keys
}

// typedList wraps the CEL list of a set or map list (listType from the
// schema); other lists are returned as they are.
func typedList(items []any, listType string, mapKeys []string) any {
	switch listType {
	case "set":
		return setList{Lister: types.DefaultTypeAdapter.NativeToValue(items).(traits.Lister)}
	case "map":
		keys := make([]string, 0, len(mapKeys))
		for _, k := range mapKeys {
			if e, ok := Escape(k); ok {
				keys = append(keys, e)
			}
		}
		return mapList{Lister: types.DefaultTypeAdapter.NativeToValue(items).(traits.Lister), keys: keys}
	}
	return items
}

func size(l traits.Lister) int {
	n, _ := l.Size().(types.Int)
	return int(n)
}

func (l setList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	n := size(l)
	if n != size(o) {
		return types.False
	}
	seen := make([]bool, n)
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		found := false
		for i := range n {
			eq := l.Get(types.Int(i)).Equal(v)
			if types.IsError(eq) {
				return eq
			}
			if eq == types.True {
				seen[i], found = true, true
				break
			}
		}
		if !found {
			return types.False
		}
	}
	for _, s := range seen {
		if !s {
			return types.False
		}
	}
	return types.True
}

func (l setList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := make([]ref.Val, 0, size(l)+size(o))
	for it := l.Iterator(); it.HasNext() == types.True; {
		out = append(out, it.Next())
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		if l.Contains(v) != types.True && !containsVal(out[size(l):], v) {
			out = append(out, v)
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

func containsVal(vs []ref.Val, v ref.Val) bool {
	for _, e := range vs {
		if e.Equal(v) == types.True {
			return true
		}
	}
	return false
}

// sameKeys reports whether the items a and b of a map list have equal
// key fields (absent in both counts as equal).
func (l mapList) sameKeys(a, b ref.Val) bool {
	am, aok := a.(traits.Mapper)
	bm, bok := b.(traits.Mapper)
	if !aok || !bok {
		return false
	}
	for _, k := range l.keys {
		av, af := am.Find(types.String(k))
		bv, bf := bm.Find(types.String(k))
		if af != bf || af && av.Equal(bv) != types.True {
			return false
		}
	}
	return true
}

func (l mapList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	n := size(l)
	if n != size(o) {
		return types.False
	}
	seen := make([]bool, n)
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		found := false
		for i := range n {
			e := l.Get(types.Int(i))
			if !l.sameKeys(e, v) {
				continue
			}
			if eq := e.Equal(v); eq != types.True {
				return eq // false or an error
			}
			seen[i], found = true, true
			break
		}
		if !found {
			return types.False
		}
	}
	for _, s := range seen {
		if !s {
			return types.False
		}
	}
	return types.True
}

func (l mapList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := make([]ref.Val, 0, size(l)+size(o))
	for it := l.Iterator(); it.HasNext() == types.True; {
		out = append(out, it.Next())
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		replaced := false
		for i, e := range out {
			if l.sameKeys(e, v) {
				out[i], replaced = v, true
				break
			}
		}
		if !replaced {
			out = append(out, v)
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}
