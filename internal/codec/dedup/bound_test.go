package dedup

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/protodec"
)

// A way values reach a table: the three an informer uses.
type sharePath struct {
	name string
	// share makes next, a new version of the object prev (nil for a new
	// object), share its values through tab, and returns it.
	share func(t *testing.T, tab *Table, next, prev *corev1.ConfigMap) *corev1.ConfigMap
}

var sharePaths = []sharePath{
	{"decoded through a session", func(t *testing.T, tab *Table, next, _ *corev1.ConfigMap) *corev1.ConfigMap {
		return decodeShared(t, tab, next)
	}},
	{"walked after decoding", func(_ *testing.T, tab *Table, next, _ *corev1.ConfigMap) *corev1.ConfigMap {
		next = next.DeepCopy() // fresh allocations, as a decoder's
		tab.Object(next)
		return next
	}},
	{"walked beside the cached version", func(_ *testing.T, tab *Table, next, prev *corev1.ConfigMap) *corev1.ConfigMap {
		next = next.DeepCopy()
		if prev == nil {
			tab.Object(next)
		} else {
			tab.ObjectLike(next, prev)
		}
		return next
	}},
}

var sharingDecoder protodec.Decoder

// decodeShared decodes obj's protobuf encoding through a session of tab
// that knows the object's identity, as an informer's decoder does.
func decodeShared[T any, P interface {
	*T
	Marshal() ([]byte, error)
	GetNamespace() string
	GetName() string
}](t *testing.T, tab *Table, obj P) P {
	t.Helper()
	raw, err := obj.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got := P(new(T))
	s := tab.Begin([]byte(obj.GetNamespace()), []byte(obj.GetName()))
	_, err = sharingDecoder.Unmarshal(raw, got, s)
	s.End()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// soakConfigMap is version i of ConfigMap name as the soak's writer and
// controller leave it: the data written, and, when marked, the
// controller's mark of it.
func soakConfigMap(name string, i int, marked bool) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "soak", Name: name, ResourceVersion: strconv.Itoa(2*i + 1)},
		Data:       map[string]string{"i": strconv.Itoa(i)},
	}
	if marked {
		cm.ResourceVersion = strconv.Itoa(2*i + 2)
		cm.Annotations = map[string]string{"example.com/marked": strconv.Itoa(i)}
	}
	return cm
}

// liveValues counts the distinct non-empty strings and the maps the cached
// objects hold: what a table sharing their values needs at most.
func liveValues(cache map[string]*corev1.ConfigMap) (strs, maps int) {
	seenStr, seenMap := map[string]bool{}, map[unsafe.Pointer]bool{}
	str := func(s string) {
		if s != "" {
			seenStr[s] = true
		}
	}
	for _, cm := range cache {
		str(cm.Namespace)
		for _, m := range []map[string]string{cm.Data, cm.Annotations, cm.Labels} {
			if m == nil {
				continue
			}
			seenMap[mapOf(m)] = true
			for k, v := range m {
				str(k)
				str(v)
			}
		}
	}
	return len(seenStr), len(seenMap)
}

// The soak's pattern: a few objects, each written again and again with a
// new value, each write received twice (the write's event, then the event
// of a controller's mark that leaves the data alone). Every value recurs,
// but only in the next version of its own object, and no cached object
// holds it after the next write: the table must not keep such values, so
// that what it holds stays a small multiple of what the cache holds however
// long the stream (a table sized for thousands of Pods would otherwise
// keep tens of thousands of them for hours).
func TestValuesOfOneObjectOnlyStayOutOfTheTable(t *testing.T) {
	const objects, writes = 30, 6000
	for _, p := range sharePaths {
		t.Run(p.name, func(t *testing.T) {
			tab := New(Options{})
			cache := map[string]*corev1.ConfigMap{}
			most, bound := [2]int{}, [2]int{}
			for i := range writes {
				name := "cm-" + strconv.Itoa(i*7%objects)
				cache[name] = p.share(t, tab, soakConfigMap(name, i, false), cache[name])
				cache[name] = p.share(t, tab, soakConfigMap(name, i, true), cache[name])
				held := [2]int{len(tab.strs.m), len(tab.raws.m) + len(tab.maps.m)}
				strs, maps := liveValues(cache)
				most = [2]int{max(most[0], held[0]), max(most[1], held[1])}
				bound = [2]int{max(bound[0], 2*strs), max(bound[1], 2*maps)}
				if held[0] > 2*strs || held[1] > 2*maps {
					t.Fatalf("after %d writes the table holds %d strings and %d maps; the cache holds %d and %d, bounds are twice that", i+1, held[0], held[1], strs, maps)
				}
			}
			t.Logf("the table held at most %d strings and %d maps (bounds at most %d and %d)", most[0], most[1], bound[0], bound[1])
			if most[0] == 0 {
				t.Error("the table held no string: the namespace and keys recurring across objects were not shared, the test tests nothing")
			}
		})
	}
}

// Values that recur across a few objects, each written in turn with the
// value of its round (a stamp rolled out to every object), do enter the
// table, and no object holds them after the next round. A table serving
// few objects keeps few generations' worth of them: what it holds is
// bounded by the number of objects, not by a size meant for thousands of
// Pods.
func TestTablesOfFewObjectsKeepFewValues(t *testing.T) {
	const objects, writes = 30, 20000
	for _, p := range sharePaths[:2] {
		t.Run(p.name, func(t *testing.T) {
			tab := New(Options{})
			cache := map[string]*corev1.ConfigMap{}
			most := [3]int{}
			for i := range writes {
				name := "cm-" + strconv.Itoa(i%objects)
				cache[name] = p.share(t, tab, soakConfigMap(name, i/objects, false), cache[name])
				cache[name] = p.share(t, tab, soakConfigMap(name, i/objects, true), cache[name])
				most = [3]int{max(most[0], len(tab.strs.m)), max(most[1], len(tab.raws.m)), max(most[2], len(tab.maps.m))}
			}
			strs, maps := liveValues(cache)
			boundStrs := 2*max(minStrings, stringsPerObject*objects) + strs
			boundMaps := 2*max(minMaps, mapsPerObject*objects) + maps
			t.Logf("the table held at most %d strings and %d maps (bounds %d and %d)", most[0], max(most[1], most[2]), boundStrs, boundMaps)
			if most[0] > boundStrs || most[1] > boundMaps || most[2] > boundMaps {
				t.Errorf("the table held up to %d strings and %d maps for %d objects; bounds %d and %d", most[0], max(most[1], most[2]), objects, boundStrs, boundMaps)
			}
			if most[0] < stringsPerObject*objects {
				t.Errorf("the table held at most %d strings: the stamps did not enter it, the test tests nothing", most[0])
			}
		})
	}
}

// A generation's size follows the objects met: the limit for many, less
// for few, the limit for a table that has met no named object.
func TestGenerationsGrowWithTheObjects(t *testing.T) {
	tests := []struct {
		objects   int
		wantStrs  int
		wantMaps  int
		unnamed   bool
		limitStrs int
	}{
		{objects: 0, wantStrs: defaultStrings, wantMaps: defaultMaps},
		{objects: 1, wantStrs: minStrings, wantMaps: minMaps},
		{objects: 30, wantStrs: 30 * stringsPerObject, wantMaps: 30 * mapsPerObject},
		{objects: 1000, wantStrs: 1000 * stringsPerObject, wantMaps: 1000 * mapsPerObject},
		{objects: 5000, wantStrs: defaultStrings, wantMaps: defaultMaps},
		{objects: 30, limitStrs: 100, wantStrs: 100, wantMaps: 30 * mapsPerObject},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d objects, limit %d", tt.objects, tt.limitStrs), func(t *testing.T) {
			tab := New(Options{Strings: tt.limitStrs})
			for i := range tt.objects {
				tab.Object(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm-" + strconv.Itoa(i)}})
			}
			// Owners are 16-bit hashes: some of 5,000 collide (about
			// 4%).
			if n := tab.objects.n; n > tt.objects || n < tt.objects*9/10 {
				t.Fatalf("counted %d objects, met %d", n, tt.objects)
			}
			if got := tab.strs.size(); got != tt.wantStrs && tt.objects != 1000 {
				t.Errorf("strings per generation = %d, want %d", got, tt.wantStrs)
			}
			if got := tab.raws.size(); got != tt.wantMaps && tt.objects != 1000 {
				t.Errorf("maps per generation = %d, want %d", got, tt.wantMaps)
			}
			if tt.objects == 1000 {
				if got := tab.strs.size(); got < tt.wantStrs*9/10 || got > tt.wantStrs {
					t.Errorf("strings per generation = %d, want about %d", got, tt.wantStrs)
				}
			}
		})
	}
}

// What the table is for: equal values of different objects (the Pods of a
// few Deployments) end up held about twice (the first object keeps the
// copy it was decoded with, the others share the second's), and stay so
// when the objects are updated.
func TestValuesOfManyObjectsAreShared(t *testing.T) {
	const pods, deployments = 1200, 6
	mk := func(i, version int) *corev1.Pod {
		d := i % deployments
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "shop", Name: fmt.Sprintf("web-%d-%d", d, i), ResourceVersion: strconv.Itoa(version),
				Labels: map[string]string{"app": fmt.Sprintf("web-%d", d), "pod-template-hash": fmt.Sprintf("%08x", d)},
			},
			Spec: corev1.PodSpec{
				NodeName:   fmt.Sprintf("node-%d", i%40),
				Containers: []corev1.Container{{Name: "app", Image: fmt.Sprintf("registry.example.com/web-%d:v1", d)}},
			},
			Status: corev1.PodStatus{PodIP: fmt.Sprintf("10.0.%d.%d", i/250, i%250)},
		}
	}
	paths := map[string]func(tab *Table, next, prev *corev1.Pod) *corev1.Pod{
		"decoded through a session": func(tab *Table, next, _ *corev1.Pod) *corev1.Pod {
			return decodeShared(t, tab, next)
		},
		"walked after decoding": func(tab *Table, next, _ *corev1.Pod) *corev1.Pod {
			tab.Object(next)
			return next
		},
		"walked beside the cached version": func(tab *Table, next, prev *corev1.Pod) *corev1.Pod {
			if prev == nil {
				tab.Object(next)
			} else {
				tab.ObjectLike(next, prev)
			}
			return next
		},
	}
	for name, share := range paths {
		t.Run(name, func(t *testing.T) {
			tab := New(Options{})
			cache := make([]*corev1.Pod, pods)
			for version := range 3 { // the initial sync, then two updates of every Pod
				for i := range cache {
					cache[i] = share(tab, mk(i, version+1), cache[i])
				}
				images, labels, nodes := map[*byte]bool{}, map[unsafe.Pointer]bool{}, map[*byte]bool{}
				for _, p := range cache {
					images[unsafe.StringData(p.Spec.Containers[0].Image)] = true
					nodes[unsafe.StringData(p.Spec.NodeName)] = true
					labels[mapOf(p.Labels)] = true
				}
				// Twice the distinct values, and a few more: a value's
				// second sighting is missed when another took its slot
				// among the recently met since its first.
				if len(images) > 3*deployments || len(labels) > 3*deployments || len(nodes) > 3*40 {
					t.Errorf("version %d: %d Pods hold %d images, %d label maps and %d node names; want at most %d, %d and %d",
						version+1, pods, len(images), len(labels), len(nodes), 3*deployments, 3*deployments, 3*40)
				}
				if version == 2 {
					t.Logf("%d Pods hold %d images, %d label maps and %d node names", pods, len(images), len(labels), len(nodes))
				}
			}
			// Each Pod's own address recurs only in its own versions:
			// the table keeps none of them.
			for i := range pods {
				if _, ok := tab.strs.get(cache[i].Status.PodIP); ok {
					t.Fatalf("the table holds Pod %d's own address %s", i, cache[i].Status.PodIP)
				}
			}
		})
	}
}

// mapOf returns the pointer a map value holds: one per map.
func mapOf(m map[string]string) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

// Values that do recur across objects, but only for a while (a value
// written into two objects, then replaced in both), are forgotten by
// generation: the table never holds more than two generations' worth,
// however long the stream, besides the few values that recur in every
// write (the map keys, the namespace), which it keeps.
func TestValuesRecurringForAWhileAgeOut(t *testing.T) {
	const strs, maps, writes = 64, 16, 5000
	const keys = 8 // room for the values every write repeats
	mapType := reflect.TypeFor[map[string]string]()
	tests := []struct {
		name  string
		twice func(tab *Table, i int) // one write's value, received by two objects
		held  func(tab *Table) (strings, maps int)
	}{
		{"decoded through a session", func(tab *Table, i int) {
			v := "v" + strconv.Itoa(i)
			raw := []byte("\x0a" + string(rune(7+len(v))) + "\x0a\x03key\x12" + string(rune(len(v))) + v)
			for _, name := range []string{"a", "b"} {
				s := tab.Begin([]byte("ns"), []byte(name))
				if _, ok := s.SharedMap(1, mapType, raw); !ok {
					s.KeepMap(1, mapType, raw, reflect.ValueOf(map[string]string{"key": s.ShareBytes(2, []byte(v))}))
				}
				s.End()
			}
		}, func(tab *Table) (int, int) { return len(tab.strs.m), len(tab.raws.m) }},
		{"walked after decoding", func(tab *Table, i int) {
			v := "v" + strconv.Itoa(i)
			for _, name := range []string{"a", "b"} {
				tab.Object(&corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{"mark": string([]byte(v))}},
					Data:       map[string]string{"key": string([]byte(v))},
				})
			}
		}, func(tab *Table) (int, int) { return len(tab.strs.m), len(tab.maps.m) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := New(Options{Strings: strs, Maps: maps})
			most := [2]int{}
			for i := range writes {
				tt.twice(tab, i)
				s, m := tt.held(tab)
				most = [2]int{max(most[0], s), max(most[1], m)}
			}
			if most[0] > 2*strs+keys || most[1] > 2*maps {
				t.Errorf("table held up to %d strings and %d maps after %d writes; bounds %d and %d", most[0], most[1], writes, 2*strs+keys, 2*maps)
			}
			if most[0] < strs || most[1] < maps {
				t.Errorf("table held at most %d strings and %d maps: the values did not enter it, the test tests nothing", most[0], most[1])
			}
		})
	}
}
