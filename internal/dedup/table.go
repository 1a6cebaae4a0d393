package dedup

import (
	"hash/maphash"
	"maps"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// MaxStringLen is the longest string a Table shares; longer strings
	// (certificates, scripts, last-applied annotations) are nearly always
	// unique and would cost a hash for nothing.
	MaxStringLen = 1024
	// MaxMapEntries is the largest map a Table shares as a whole.
	MaxMapEntries = 32

	defaultStrings = 1 << 14
	defaultMaps    = 1 << 12
)

// Options sizes a [Table]. The zero value is valid.
type Options struct {
	// Strings is how many distinct strings one generation remembers;
	// 0 means 16384.
	Strings int
	// Maps is how many distinct maps one generation remembers; 0 means
	// 4096.
	Maps int
}

// Table shares equal values between the objects given to [Table.Object].
// The zero value is not usable: create one with [New].
type Table struct {
	strs gen[string, string]
	maps gen[mapKey, reflect.Value]
	seed maphash.Seed

	plans map[reflect.Type]*plan
}

// mapKey identifies a map by its type and a hash of its content; equal
// hashes are confirmed by comparing content.
type mapKey struct {
	t reflect.Type
	h uint64
}

// New returns an empty table.
func New(opts Options) *Table {
	if opts.Strings <= 0 {
		opts.Strings = defaultStrings
	}
	if opts.Maps <= 0 {
		opts.Maps = defaultMaps
	}
	return &Table{
		strs:  newGen[string, string](opts.Strings),
		maps:  newGen[mapKey, reflect.Value](opts.Maps),
		seed:  maphash.MakeSeed(),
		plans: map[reflect.Type]*plan{},
	}
}

// Object replaces, in place, the values of obj that equal values seen
// before by shared copies. obj must be a non-nil pointer to a struct that
// nobody else holds yet; anything else is left alone. Object never changes
// what obj means: every field compares equal (reflect.DeepEqual) before and
// after.
func (t *Table) Object(obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	p := t.planFor(v.Type().Elem())
	if p == nil {
		return
	}
	t.walkStruct(v.Elem(), p)
}

// String returns a string equal to s, shared with earlier calls.
func (t *Table) String(s string) string {
	if len(s) == 0 || len(s) > MaxStringLen {
		return s
	}
	if c, ok := t.strs.get(s); ok {
		return c
	}
	t.strs.put(s, s)
	return s
}

// StringMap returns a map equal to m, shared with earlier calls when an
// equal map was seen; otherwise it shares m's strings and remembers m. m
// must be held by nobody else.
func (t *Table) StringMap(m map[string]string) map[string]string {
	if m == nil || len(m) > MaxMapEntries {
		return m
	}
	var h uint64
	for k, v := range m {
		h += mix(maphash.String(t.seed, k), maphash.String(t.seed, v))
	}
	key := mapKey{t: stringMapType, h: h}
	if c, ok := t.maps.get(key); ok {
		if cm := c.Interface().(map[string]string); maps.Equal(cm, m) {
			return cm
		}
		return m // a hash collision: keep m to itself
	}
	for k, v := range m {
		// Assigning with an equal key replaces the stored key too.
		m[t.String(k)] = t.String(v)
	}
	t.maps.put(key, reflect.ValueOf(m))
	return m
}

var (
	stringMapType = reflect.TypeFor[map[string]string]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	objectMetaTyp = reflect.TypeFor[metav1.ObjectMeta]()
)

// mix combines the hashes of one map entry; entries are summed, so the
// result does not depend on iteration order.
func mix(k, v uint64) uint64 {
	x := k ^ (v * 0x9e3779b97f4a7c15)
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// gen is a two-generation map of bounded size.
type gen[K comparable, V any] struct {
	limit    int
	cur, old map[K]V
}

func newGen[K comparable, V any](limit int) gen[K, V] {
	return gen[K, V]{limit: limit, cur: make(map[K]V)}
}

func (g *gen[K, V]) get(k K) (V, bool) {
	if v, ok := g.cur[k]; ok {
		return v, true
	}
	v, ok := g.old[k]
	if ok {
		g.put(k, v)
	}
	return v, ok
}

func (g *gen[K, V]) put(k K, v V) {
	if len(g.cur) >= g.limit {
		g.old, g.cur = g.cur, make(map[K]V, g.limit/4)
	}
	g.cur[k] = v
}
