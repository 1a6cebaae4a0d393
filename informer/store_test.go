package informer

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func byApp(o *corev1.ConfigMap) []string {
	if v, ok := o.Labels["app"]; ok {
		return []string{v}
	}
	return nil
}

// storeModes are the two representations of a cache: decoded objects, and
// packed ones (Options.Compact).
var storeModes = []struct {
	name    string
	compact bool
}{{"decoded", false}, {"compact", true}}

// packerIf returns T's packer when compact is set.
func packerIf[T Object](compact bool) *packer[T] {
	if !compact {
		return nil
	}
	return newPacker[T]()
}

// deltaObject returns d's object, decoding it from a compact store.
func deltaObject[T Object](s *cacheStore[T], d change[T]) T {
	if d.objP.ok() {
		return s.pack.unpack(d.objP)
	}
	return d.Object
}

func TestStore(t *testing.T) {
	for _, m := range storeModes {
		t.Run(m.name, func(t *testing.T) { testStore(t, m.compact) })
	}
}

func testStore(t *testing.T, compact bool) {
	newS := func() *cacheStore[*corev1.ConfigMap] {
		s := newStore(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp}, nil, packerIf[*corev1.ConfigMap](compact))
		s.put(cm("a", "x", "1", "app", "web"))
		s.put(cm("a", "y", "1", "app", "db"))
		s.put(cm("b", "x", "1", "app", "web"))
		s.put(cm("", "global", "1"))
		return s
	}
	t.Run("namespace index lists one namespace", func(t *testing.T) {
		l := Lister[*corev1.ConfigMap]{store: newS()}
		eq(t, "ns a", keysOf(l.Namespace("a").List(nil)), []string{"a/x", "a/y"})
		sel := labels.SelectorFromSet(labels.Set{"app": "web"})
		eq(t, "ns a app=web", keysOf(l.Namespace("a").List(sel)), []string{"a/x"})
		if _, ok := l.Get("global"); !ok {
			t.Fatal("cluster-scoped Get failed")
		}
	})
	t.Run("List filters by selector", func(t *testing.T) {
		s := newS()
		eq(t, "all", keysOf(s.List(nil)), []string{"a/x", "a/y", "b/x", "global"})
		sel, _ := labels.Parse("app in (web)")
		eq(t, "web", keysOf(s.List(sel)), []string{"a/x", "b/x"})
	})
	t.Run("custom index answers ByIndex and IndexKeys", func(t *testing.T) {
		s := newS()
		objs, err := s.ByIndex("app", "web")
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "ByIndex", keysOf(objs), []string{"a/x", "b/x"})
		ks, _ := s.IndexKeys("app", "db")
		if len(ks) != 1 || ks[0] != (Key{"a", "y"}) {
			t.Fatalf("IndexKeys = %v", ks)
		}
		vals, _ := s.IndexValues("app")
		eq(t, "IndexValues", vals, []string{"db", "web"})
	})
	t.Run("update moves an object between index values", func(t *testing.T) {
		s := newS()
		s.put(cm("a", "x", "2", "app", "db"))
		ks, _ := s.IndexKeys("app", "db")
		if len(ks) != 2 {
			t.Fatalf("db keys %v", ks)
		}
		s.remove(Key{"a", "y"})
		ks, _ = s.IndexKeys("app", "db")
		if len(ks) != 1 || s.Len() != 3 {
			t.Fatalf("after remove: %v, len %d", ks, s.Len())
		}
	})
	t.Run("unknown index is a typed error", func(t *testing.T) {
		_, err := newS().ByIndex("nope", "x")
		if !errors.Is(err, ErrUnknownIndex) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("indexes added later cover existing objects", func(t *testing.T) {
		s := newS()
		s.addIndexers(map[string]IndexFunc[*corev1.ConfigMap]{"name": func(o *corev1.ConfigMap) []string { return []string{o.Name} }})
		objs, err := s.ByIndex("name", "x")
		if err != nil || len(objs) != 2 {
			t.Fatalf("ByIndex(name,x) = %v, %v", keysOf(objs), err)
		}
	})
	t.Run("replace emits Replaced per item and a final-state-unknown delete per vanished key", func(t *testing.T) {
		s := newS()
		ds := s.replace([]*corev1.ConfigMap{cm("a", "x", "2"), cm("c", "new", "1")}, false)
		var got []string
		for _, d := range ds {
			got = append(got, fmt.Sprintf("%s %s old=%v unknown=%v", d.Type, KeyOf(deltaObject(s, d)), d.HasOld, d.FinalStateUnknown))
		}
		eq(t, "deltas", sorted(got), []string{
			"Deleted a/y old=false unknown=true",
			"Deleted b/x old=false unknown=true",
			"Deleted global old=false unknown=true",
			"Replaced a/x old=true unknown=false",
			"Replaced c/new old=false unknown=false",
		})
		eq(t, "content", keysOf(s.List(nil)), []string{"a/x", "c/new"})
		if ks, _ := s.IndexKeys("app", "web"); len(ks) != 0 {
			t.Fatalf("stale index entries %v", ks)
		}
	})
}

func TestReplaceIsAtomicForReaders(t *testing.T) {
	for _, m := range storeModes {
		t.Run(m.name, func(t *testing.T) { testReplaceIsAtomic(t, m.compact) })
	}
}

func testReplaceIsAtomic(t *testing.T, compact bool) {
	s := newStore[*corev1.ConfigMap](nil, nil, packerIf[*corev1.ConfigMap](compact))
	const n = 2000
	setA := make([]*corev1.ConfigMap, n)
	setB := make([]*corev1.ConfigMap, n)
	for i := range n {
		setA[i] = cm("ns", fmt.Sprintf("a%d", i), "1", "set", "a")
		setB[i] = cm("ns", fmt.Sprintf("b%d", i), "1", "set", "b")
	}
	s.replace(setA, true)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				objs := s.List(nil)
				if len(objs) != n {
					bad.Add(1)
					continue
				}
				set := objs[0].Labels["set"]
				for _, o := range objs {
					if o.Labels["set"] != set {
						bad.Add(1)
						break
					}
				}
			}
		})
	}
	for i := range 20 {
		if i%2 == 0 {
			s.replace(setB, false)
		} else {
			s.replace(setA, false)
		}
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d lists saw a half-applied replace", bad.Load())
	}
}

func keysOf[T Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = KeyOf(o).String()
	}
	return sorted(out)
}

func TestStoreAll(t *testing.T) {
	for _, m := range storeModes {
		t.Run(m.name, func(t *testing.T) { testStoreAll(t, m.compact) })
	}
}

func testStoreAll(t *testing.T, compact bool) {
	s := newStore[*corev1.ConfigMap](nil, nil, packerIf[*corev1.ConfigMap](compact))
	s.put(cm("a", "x", "1", "app", "web"))
	s.put(cm("a", "y", "1"))
	s.put(cm("b", "x", "1", "app", "web"))
	l := Lister[*corev1.ConfigMap]{store: s}
	var got []*corev1.ConfigMap
	for o := range l.All(labels.SelectorFromSet(labels.Set{"app": "web"})) {
		got = append(got, o)
	}
	eq(t, "All(app=web)", keysOf(got), []string{"a/x", "b/x"})
	got = nil
	for o := range l.Namespace("a").All(nil) {
		got = append(got, o)
		break
	}
	if len(got) != 1 {
		t.Fatalf("early stop yielded %d", len(got))
	}
}
