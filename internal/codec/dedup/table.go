package dedup

import (
	"hash/maphash"
	"maps"
	"reflect"
	"sync"
	"unsafe"

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
	seenPairs      = 1 << 13 // a power of two
)

// Options sizes a [Table]. The zero value is valid.
type Options struct {
	// Strings is the most distinct strings one generation remembers;
	// 0 means 16384. A table that has met few objects remembers fewer
	// (see [Table]).
	Strings int
	// Maps is the most distinct maps one generation remembers; 0 means
	// 4096. A table that has met few objects remembers fewer.
	Maps int
}

// Table shares equal values between the objects given to [Table.Object].
// The zero value is not usable: create one with [New].
type Table struct {
	mu   sync.Mutex
	strs gen[string, string]
	raws gen[mapKey, rawMap] // maps by their encoded bytes (decode.go)
	// lastRaw and lastAgain: the hash of the map sharedMap last looked
	// up and whether it recurred, for the keepMap call that follows a miss.
	lastRaw   uint64
	lastAgain bool
	maps      gen[mapKey, reflect.Value]
	seed      maphash.Seed
	// seen holds, per recently met value, a tag of its hash and the
	// owner that met it last (see recurring), so that a value enters the
	// tables only when met a second time, in another object: values that
	// never recur (names, hashes, per-object settings) then cost one hash
	// and no map operation, values that recur only in the next versions
	// of their own object (a ConfigMap rewritten) are not kept for
	// objects that no longer hold them, and the tables stay small.
	seen [][2]uint32
	// owner names the object being decoded or walked (ownerOf); 0 is an
	// object of unknown name.
	owner uint16
	// objects counts the objects met, which sizes the generations
	// (gen.go).
	objects objects
	// sites learns, per decoded field, whether its values recur
	// (sites.go).
	sites sites

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
	t := &Table{
		seed:  maphash.MakeSeed(),
		seen:  make([][2]uint32, seenPairs),
		plans: map[reflect.Type]*plan{},
	}
	t.strs = newGen[string, string](opts.Strings, minStrings, stringsPerObject, &t.objects)
	t.maps = newGen[mapKey, reflect.Value](opts.Maps, minMaps, mapsPerObject, &t.objects)
	t.raws = newGen[mapKey, rawMap](opts.Maps, minMaps, mapsPerObject, &t.objects)
	return t
}

// Object replaces, in place, the values of obj that equal values seen
// before by shared copies. obj must be a non-nil pointer to a struct that
// nobody else holds yet; anything else is left alone. Object never changes
// what obj means: every field compares equal (reflect.DeepEqual) before and
// after. When obj has a name (GetNamespace and GetName, as every API
// object), its values count as met in that object (see [Table]).
func (t *Table) Object(obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.planFor(v.Type().Elem())
	if p == nil {
		return
	}
	t.meet(t.ownerOfObject(obj))
	t.walk(v.UnsafePointer(), p)
}

// ObjectLike is Object for a new version of an object whose previous
// version prev (same Go type) is already shared: values equal to prev's
// are taken from prev by a side-by-side comparison, which costs less than
// looking them up, and only what changed goes through the table. prev is
// only read. A nil or differently typed prev makes it Object.
func (t *Table) ObjectLike(obj, prev any) {
	v, pv := reflect.ValueOf(obj), reflect.ValueOf(prev)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	if !pv.IsValid() || pv.Type() != v.Type() || pv.IsNil() {
		t.Object(obj)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.planFor(v.Type().Elem())
	if p == nil {
		return
	}
	t.meet(t.ownerOfObject(obj))
	t.walkLike(v.UnsafePointer(), pv.UnsafePointer(), p)
}

// shareString returns a string equal to s, shared with earlier calls.
func (t *Table) shareString(s string) string {
	if len(s) == 0 || len(s) > MaxStringLen {
		return s
	}
	return t.str(s, maphash.String(t.seed, s))
}

// str is String for a string whose hash h is known.
func (t *Table) str(s string, h uint64) string {
	if len(s) == 0 || len(s) > MaxStringLen {
		return s
	}
	met, elsewhere := t.recurring(h)
	if !met {
		return s
	}
	if c, ok := t.strs.get(s); ok {
		return c
	}
	if elsewhere {
		t.strs.put(s, s)
	}
	return s
}

// recurring reports whether a value of hash h was met recently (met), and
// whether it was last met in another object than the current owner's, or
// either's name is unknown (elsewhere); it notes that the current owner
// met it. Only a value met elsewhere enters the tables: one that recurs
// only in the next versions of its own object would be kept for a
// generation or two after the object stopped holding it, and sharing it
// saves no memory. It may answer false for a value met before (its slot
// was taken by another since) and, rarely, true for a new one or
// elsewhere for the same object (tags and owners are hashes); either only
// decides whether the tables are consulted or added to, never what is
// shared.
//
// Each hash has two slots, the value met last first: two values that
// recur in turn and fall on the same slots both stay (with one slot each,
// they would push each other out and never be seen to recur, nor be
// found in the tables).
func (t *Table) recurring(h uint64) (met, elsewhere bool) {
	pair := &t.seen[h&(seenPairs-1)]
	tag := uint32(h>>32)&^ownerMask | tagBit
	var old uint32
	switch {
	case pair[0]&^ownerMask == tag:
		old = pair[0]
	case pair[1]&^ownerMask == tag:
		old = pair[1]
		pair[1] = pair[0]
	default:
		pair[1] = pair[0]
		pair[0] = tag | uint32(t.owner)
		return false, false
	}
	pair[0] = tag | uint32(t.owner)
	o := uint16(old)
	return true, o != t.owner || o == 0
}

const (
	ownerMask = 1<<16 - 1 // the owner's bits of a seen slot
	tagBit    = 1 << 16   // set in every tag: an empty slot matches none
)

// meet makes owner the owner of the values met next, and counts it.
func (t *Table) meet(owner uint16) {
	t.owner = owner
	t.objects.add(owner)
}

// ownerOf returns the owner of the values of the object namespace/name:
// a hash, never 0 for a named object; 0 when name is empty.
func (t *Table) ownerOf(namespace, name string) uint16 {
	if name == "" {
		return 0
	}
	h := mix(maphash.String(t.seed, namespace), maphash.String(t.seed, name))
	if o := uint16(h >> 48); o != 0 {
		return o
	}
	return 1
}

// ownerOfObject is ownerOf for an API object; 0 when obj has no name.
func (t *Table) ownerOfObject(obj any) uint16 {
	if o, ok := obj.(named); ok {
		return t.ownerOf(o.GetNamespace(), o.GetName())
	}
	return 0
}

// named is what an API object tells of its identity.
type named interface {
	GetNamespace() string
	GetName() string
}

// shareStringMap returns a map equal to m, shared with earlier calls when an
// equal map was seen; otherwise it shares m's strings and remembers m. m
// must be held by nobody else.
func (t *Table) shareStringMap(m map[string]string) map[string]string {
	if m == nil || len(m) > MaxMapEntries {
		return m
	}
	var (
		h       uint64
		entries [MaxMapEntries]struct {
			k, v   string
			hk, hv uint64
		}
		n int
	)
	for k, v := range m {
		e := &entries[n]
		e.k, e.v, e.hk, e.hv = k, v, maphash.String(t.seed, k), maphash.String(t.seed, v)
		h += mix(e.hk, e.hv)
		n++
	}
	key := mapKey{t: stringMapType, h: h}
	met, elsewhere := t.recurring(h)
	if met {
		if c, ok := t.maps.get(key); ok {
			if cm := c.Interface().(map[string]string); maps.Equal(cm, m) {
				return cm
			}
			return m // a hash collision: keep m to itself
		}
	}
	for _, e := range entries[:n] {
		k, v := t.str(e.k, e.hk), t.str(e.v, e.hv)
		if !sameString(k, e.k) || !sameString(v, e.v) {
			// Assigning with an equal key replaces the stored key too.
			m[k] = v
		}
	}
	if elsewhere {
		t.maps.put(key, reflect.ValueOf(m))
	}
	return m
}

// sameString reports whether a and b are the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
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
