package informer

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

func TestCompactReadsHandOutObjectsOfTheirOwn(t *testing.T) {
	s := newStore(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp}, nil, newPacker[*corev1.ConfigMap]())
	s.put(cm("a", "x", "1", "app", "web"))
	reads := map[string]func() *corev1.ConfigMap{
		"Get":  func() *corev1.ConfigMap { o, _ := s.Get(Key{"a", "x"}); return o },
		"List": func() *corev1.ConfigMap { return s.List(nil)[0] },
		"List with selector": func() *corev1.ConfigMap {
			return s.List(labels.SelectorFromSet(labels.Set{"app": "web"}))[0]
		},
		"ByIndex": func() *corev1.ConfigMap { o, _ := s.ByIndex("app", "web"); return o[0] },
		"namespace lister": func() *corev1.ConfigMap {
			return Lister[*corev1.ConfigMap]{store: s}.Namespace("a").List(nil)[0]
		},
		"All": func() *corev1.ConfigMap {
			for o := range s.All(nil) {
				return o
			}
			return nil
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			a, b := read(), read()
			if a == nil || a == b {
				t.Fatalf("two reads returned %p and %p, want two objects", a, b)
			}
			a.Labels["app"] = "changed"
			a.Name = "changed"
			if c := read(); c.Labels["app"] != "web" || c.Name != "x" {
				t.Fatalf("a caller's change reached the cache: %v", c.ObjectMeta)
			}
		})
	}
}

func TestCompactMetadataReadsBackWhatWasStored(t *testing.T) {
	s := newStore[*metav1.PartialObjectMetadata](nil, nil, newPacker[*metav1.PartialObjectMetadata]())
	if s.pack == nil {
		t.Fatal("PartialObjectMetadata got no packer")
	}
	ctrl := true
	in := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "a", Name: "web", UID: "u-1", ResourceVersion: "7", Generation: 3,
			Labels:          map[string]string{"app": "web", "tier": "front"},
			Annotations:     map[string]string{"note": "kept"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Thing", Name: "o", UID: "u-0", Controller: &ctrl}},
			Finalizers:      []string{"example.com/f"},
		},
	}
	s.put(in.DeepCopy())
	a, ok := s.Get(Key{"a", "web"})
	if !ok {
		t.Fatal("the stored object is not found")
	}
	if !equality.Semantic.DeepEqual(a, in) {
		t.Fatalf("read back %+v, stored %+v", a, in)
	}
	a.Labels["app"] = "changed"
	if b, _ := s.Get(Key{"a", "web"}); b == a || b.Labels["app"] != "web" {
		t.Fatalf("a caller's change reached the cache: %v", b.Labels)
	}
	if got := s.List(labels.SelectorFromSet(labels.Set{"tier": "front"})); len(got) != 1 {
		t.Fatalf("a selector on the stored labels matched %d objects, want 1", len(got))
	}
}

func TestCompactStoreKeepsHeldBytesForUnchangedObjects(t *testing.T) {
	s := newStore[*corev1.ConfigMap](nil, nil, newPacker[*corev1.ConfigMap]())
	s.replace([]*corev1.ConfigMap{cm("a", "x", "1"), cm("a", "y", "1")}, true)
	held := func(k Key) packed {
		h, mi, si := s.pos(k)
		e, _ := s.cur.Load().mids[mi].shards[si].items.get(h, k)
		return e.pk
	}
	before := held(Key{"a", "x"})
	ds := s.replace([]*corev1.ConfigMap{cm("a", "x", "1"), cm("a", "z", "1")}, false)
	if held(Key{"a", "x"}) != before {
		t.Fatal("an unchanged object was encoded again by a relist")
	}
	var gone []string
	for _, d := range ds {
		if d.Type == deltaDeleted && d.FinalStateUnknown {
			gone = append(gone, KeyOf(deltaObject(s, d)).String())
		}
	}
	eq(t, "deleted with final state unknown", gone, []string{"a/y"})
}

func TestCompactTransformRunsBeforeEncoding(t *testing.T) {
	inf := New(Funcs[*corev1.ConfigMap]{}, Options[*corev1.ConfigMap]{Transform: func(c *corev1.ConfigMap) *corev1.ConfigMap {
		c.Data = nil
		c.Labels = map[string]string{"transformed": "yes"}
		return c
	}})
	s := (*sink[*corev1.ConfigMap])(inf)
	in := cm("a", "x", "1")
	in.Data = map[string]string{"big": "value"}
	s.Replace([]*corev1.ConfigMap{s.Prepare(in)}, "1")
	got, _ := inf.Lister().GetKey(Key{"a", "x"})
	if got.Data != nil || got.Labels["transformed"] != "yes" {
		t.Fatalf("stored %v %v, want the transformed object", got.Labels, got.Data)
	}
	if n := len(inf.Lister().List(labels.SelectorFromSet(labels.Set{"transformed": "yes"}))); n != 1 {
		t.Fatalf("selector on transformed labels matched %d", n)
	}
}

func TestCompactHandlersGetObjectsOfTheirOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := watch.NewFake()
		lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1", "v", "1"), cm("ns", "b", "2"))).onWatch(watchCh(w))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		var mu sync.Mutex
		var seen []*corev1.ConfigMap
		var log []string
		keep := func(tag string, objs ...*corev1.ConfigMap) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, objs...)
			s := tag
			for _, o := range objs {
				s += " " + KeyOf(o).String() + "@" + o.ResourceVersion + ":" + o.Labels["v"]
			}
			log = append(log, s)
		}
		h := HandlerFuncs[*corev1.ConfigMap]{
			AddFunc:    func(o *corev1.ConfigMap, _ bool) { keep("add", o) },
			UpdateFunc: func(old, o *corev1.ConfigMap) { keep("update", old, o); o.Labels = map[string]string{"v": "mutated"} },
			DeleteFunc: func(o *corev1.ConfigMap, unknown bool) { keep("delete", o) },
		}
		inf.AddEventHandler(h, HandlerOptions{})
		inf.AddEventHandler(h, HandlerOptions{})
		stop := start(t, inf)
		defer stop()
		inf.WaitForSync(t.Context())
		w.Modify(cm("ns", "a", "11", "v", "2"))
		w.Delete(cm("ns", "b", "12", "v", "last"))
		synctest.Wait()
		slices.Sort(log)
		eq(t, "events", log, []string{
			"add ns/a@1:1", "add ns/a@1:1", "add ns/b@2:", "add ns/b@2:",
			"delete ns/b@12:last", "delete ns/b@12:last",
			"update ns/a@1:1 ns/a@11:2", "update ns/a@1:1 ns/a@11:2",
		})
		for i, a := range seen {
			for _, b := range seen[i+1:] {
				if a == b {
					t.Fatalf("two callbacks shared object %s", KeyOf(a))
				}
			}
		}
		if got, _ := inf.Lister().GetKey(Key{"ns", "a"}); got.Labels["v"] != "2" {
			t.Fatalf("a handler's change reached the cache: %v", got.Labels)
		}
	})
}

func TestCompactAppliesOnlyToProtobufTypes(t *testing.T) {
	if newPacker[*unstructured.Unstructured]() != nil {
		t.Fatal("unstructured objects got a packer; they have no protobuf encoding")
	}
	inf := New(Funcs[*unstructured.Unstructured]{}, Options[*unstructured.Unstructured]{})
	if inf.store.pack != nil {
		t.Fatal("a compact informer of unstructured objects packs them")
	}
	if newPacker[*corev1.Pod]() == nil {
		t.Fatal("Pods got no packer")
	}
}

func TestCompactPreparedObjectsAreStoredFromTheirEncoding(t *testing.T) {
	inf := New(Funcs[*corev1.ConfigMap]{}, Options[*corev1.ConfigMap]{})
	s := (*sink[*corev1.ConfigMap])(inf)
	in := cm("a", "x", "1", "app", "web")
	in.Data = map[string]string{"k": "v"}
	stub := s.Prepare(in)
	if stub == in || stub.Data != nil {
		t.Fatal("Prepare kept the decoded object for a compact cache")
	}
	inf.AddIndexers(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp}) // between prepare and store
	abandoned := s.Prepare(cm("a", "gone", "1"))
	s.Replace([]*corev1.ConfigMap{stub}, "1")
	got, ok := inf.Lister().GetKey(Key{"a", "x"})
	if !ok || got.Data["k"] != "v" {
		t.Fatalf("stored %v, want the prepared object", got)
	}
	if objs, _ := inf.Lister().ByIndex("app", "web"); len(objs) != 1 {
		t.Fatalf("an index added after Prepare misses the object: %d", len(objs))
	}
	if n := len(inf.store.pending); n != 0 {
		t.Fatalf("%d prepared objects still pending after the list was stored (%v abandoned)", n, KeyOf(abandoned))
	}
	// A relisted unchanged object keeps its encoding.
	held := inf.store.heldPacked(Key{"a", "x"})
	s.Replace([]*corev1.ConfigMap{s.Prepare(cm("a", "x", "1", "app", "web"))}, "2")
	if inf.store.heldPacked(Key{"a", "x"}).pk != held.pk {
		t.Fatal("an unchanged relisted object was stored again")
	}
}

func TestCompactWatchHintHandsBackTheHeldEncoding(t *testing.T) {
	inf := New(Funcs[*corev1.ConfigMap]{}, Options[*corev1.ConfigMap]{})
	s := (*sink[*corev1.ConfigMap])(inf)
	s.Add(cm("a", "x", "5", "state", "five"))
	if _, ok := s.known("a", "x", "4"); ok {
		t.Fatal("known answered for another resourceVersion")
	}
	held, ok := s.known("a", "x", "5")
	if !ok {
		t.Fatal("known did not recognise the held object")
	}
	stub := held.(*corev1.ConfigMap)
	if s.Prepare(stub) != stub {
		t.Fatal("Prepare replaced the stand-in")
	}
	// A replayed older event applied before the stand-in: the stand-in
	// still stores the state it stands for, not an empty object.
	s.Update(cm("a", "x", "4", "state", "four"))
	s.Update(stub)
	got, _ := inf.Lister().GetKey(Key{"a", "x"})
	if got.ResourceVersion != "5" || got.Labels["state"] != "five" {
		t.Fatalf("stored %s %v, want version 5", got.ResourceVersion, got.Labels)
	}
	if n := len(inf.store.pending); n != 0 {
		t.Fatalf("%d stand-ins pending", n)
	}
}
