package informer

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

func unstructuredObj(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func typedCM(kind, ns, name string) *corev1.ConfigMap {
	c := cm(ns, name, "1")
	c.Kind = kind
	return c
}

func TestAdmissionRefusesForeignObjects(t *testing.T) {
	configmaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	elastic := schema.GroupVersionResource{Group: "es.example.com", Version: "v1", Resource: "elasticsearches"}
	type step struct {
		obj     Object
		refused bool
	}
	tests := []struct {
		name  string
		opts  ReflectorOptions
		typ   reflect.Type
		steps []step
	}{
		{"an object without a name is refused", ReflectorOptions{}, reflect.TypeFor[*corev1.ConfigMap](), []step{
			{cm("a", "", "1"), true}, {cm("a", "x", "1"), false}}},
		{"objects of another namespace are refused", ReflectorOptions{Namespace: "a"}, reflect.TypeFor[*corev1.ConfigMap](), []step{
			{cm("a", "x", "1"), false}, {cm("b", "x", "1"), true}, {cm("", "x", "1"), true}}},
		{"any namespace passes an all-namespaces informer", ReflectorOptions{}, reflect.TypeFor[*corev1.ConfigMap](), []step{
			{cm("a", "x", "1"), false}, {cm("b", "x", "1"), false}}},
		{"unstructured objects of another group/version or kind are refused", ReflectorOptions{Resource: configmaps}, reflect.TypeFor[*unstructured.Unstructured](), []step{
			{unstructuredObj("v1", "ConfigMap", "a", "x"), false},
			{unstructuredObj("v1", "Secret", "a", "s"), true},
			{unstructuredObj("apps/v1", "Deployment", "a", "d"), true},
			{unstructuredObj("v1", "", "a", "k"), true},
			{unstructuredObj("v1", "ConfigMap", "a", "y"), false}}},
		{"a foreign kind first is learned, then refused once the regular kind came", ReflectorOptions{Resource: configmaps}, reflect.TypeFor[*unstructured.Unstructured](), []step{
			{unstructuredObj("v1", "Secret", "a", "s"), false},
			{unstructuredObj("v1", "ConfigMap", "a", "x"), false},
			{unstructuredObj("v1", "Secret", "a", "s2"), true}}},
		{"an irregular plural is learned from the first object", ReflectorOptions{Resource: elastic}, reflect.TypeFor[*unstructured.Unstructured](), []step{
			{unstructuredObj("es.example.com/v1", "Elasticsearch", "a", "x"), false},
			{unstructuredObj("es.example.com/v1", "Elasticsearch", "a", "y"), false},
			{unstructuredObj("es.example.com/v1", "Kibana", "a", "k"), true}}},
		{"an explicit Kind is the only one", ReflectorOptions{Resource: elastic, Kind: "Elasticsearch"}, reflect.TypeFor[*unstructured.Unstructured](), []step{
			{unstructuredObj("es.example.com/v1", "Kibana", "a", "k"), true},
			{unstructuredObj("es.example.com/v1", "Elasticsearch", "a", "x"), false}}},
		{"unstructured objects pass without a Resource", ReflectorOptions{}, reflect.TypeFor[*unstructured.Unstructured](), []step{
			{unstructuredObj("v1", "Secret", "a", "s"), false}}},
		{"typed objects stating another kind are refused", ReflectorOptions{}, reflect.TypeFor[*corev1.ConfigMap](), []step{
			{typedCM("", "a", "plain"), false},
			{typedCM("ConfigMap", "a", "x"), false},
			{typedCM("Secret", "a", "s"), true}}},
		{"a typed kind other than the type's name is learned", ReflectorOptions{}, reflect.TypeFor[*appsv1.Deployment](), []step{
			{&appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Deploy"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}}, false},
			{&appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Deploy"}, ObjectMeta: metav1.ObjectMeta{Name: "y"}}, false},
			{&appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "z"}}, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAdmission(tt.opts, "", tt.typ)
			want := 0
			for i, s := range tt.steps {
				err := a.check(s.obj)
				if (err != nil) != s.refused {
					t.Fatalf("step %d (%s): refused = %v, want %v", i, KeyOf(s.obj), err, s.refused)
				}
				if err != nil {
					want++
					if !errors.Is(err, ErrRefused) || err.Error() == "" {
						t.Fatalf("step %d: error %v does not wrap ErrRefused", i, err)
					}
				}
			}
			if n, last := a.counts(); n != want || (n > 0) != (last != nil) {
				t.Fatalf("counts = %d, %v; want %d", n, last, want)
			}
		})
	}
}

// The namespace an informer refuses others than comes from
// ReflectorOptions.Namespace, from a Namespaced ListerWatcher, or from one
// wrapped by Erase and narrowed back as a Factory does.
func TestInformerRefusesObjectsOfAnotherNamespace(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts string // ReflectorOptions.Namespace
		lw   func(*fakeLW) ListerWatcher[*corev1.ConfigMap]
	}{
		{"the options name it", "a", func(lw *fakeLW) ListerWatcher[*corev1.ConfigMap] { return lw }},
		{"the ListerWatcher names it", "", func(lw *fakeLW) ListerWatcher[*corev1.ConfigMap] { return nsLW{lw, "a"} }},
		{"an erased and narrowed ListerWatcher names it", "", func(lw *fakeLW) ListerWatcher[*corev1.ConfigMap] {
			return typedLW[*corev1.ConfigMap]{inner: Erase[*corev1.ConfigMap](nsLW{lw, "a"})}
		}},
		{"both name it", "a", func(lw *fakeLW) ListerWatcher[*corev1.ConfigMap] { return nsLW{lw, "a"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := watch.NewFake()
				lw := (&fakeLW{}).onList(listOf("10", cm("a", "one", "5"), cm("b", "other", "6"))).onWatch(watchCh(w))
				opts := noStream()
				opts.Namespace = tt.opts
				inf := New(tt.lw(lw), Options[*corev1.ConfigMap]{Reflector: opts})
				stop := start(t, inf)
				defer stop()
				synctest.Wait()
				w.Add(cm("b", "other2", "11"))
				w.Add(cm("a", "two", "12"))
				synctest.Wait()
				keys := inf.Lister().Keys()
				slices.SortFunc(keys, func(x, y Key) int { return strings.Compare(x.String(), y.String()) })
				if want := []Key{{"a", "one"}, {"a", "two"}}; !slices.Equal(keys, want) {
					t.Fatalf("cache %v, want %v", keys, want)
				}
				n, last := inf.Refused()
				var re *RefusedError
				if n != 2 || !errors.As(last, &re) || re.Key != (Key{"b", "other2"}) {
					t.Fatalf("Refused() = %d, %v; want 2, the last b/other2", n, last)
				}
			})
		})
	}
}

// nsLW is a ListerWatcher that says which namespace it lists.
type nsLW struct {
	*fakeLW
	ns string
}

func (l nsLW) Namespace() string { return l.ns }

// A watch event whose object has no name ends the watch (nothing is cached
// under an empty key), and an object without a resourceVersion does not
// reset the resume point: every watch resumes from the list's version.
func TestReflectorPoisonedEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := (&fakeLW{}).onList(listOf("10", cm("a", "one", "5"))).onWatch(
			watchWith(false, watch.Event{Type: watch.Added, Object: cm("a", "", "11")}),
			watchWith(true, watch.Event{Type: watch.Added, Object: cm("a", "two", "")}),
			watchWith(false, watch.Event{Type: watch.Added, Object: cm("a", "three", "12")}),
		)
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		stop := start(t, inf)
		defer stop()
		synctest.Wait()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if _, ok := inf.Lister().GetKey(Key{Namespace: "a"}); ok {
			t.Error("an object without a name is cached")
		}
		if _, ok := inf.Lister().GetKey(Key{Namespace: "a", Name: "three"}); !ok {
			t.Errorf("the third watch's event is missing; cache %v", inf.Lister().Keys())
		}
		calls := lw.callLog()
		want := []string{"list rv=", "watch rv=10", "watch rv=10", "watch rv=10"}
		if len(calls) < len(want) || !slices.Equal(calls[:len(want)], want) {
			t.Fatalf("calls %q, want %q", calls, want)
		}
		if n, _ := inf.Refused(); n != 1 {
			t.Errorf("Refused() = %d, want 1", n)
		}
	})
}

// A watch that never opens (no response headers from a wedged proxy) is
// abandoned after WatchOpenTimeout with ErrWatchStalled, and the next one
// is opened.
func TestReflectorAbandonsWatchThatNeverOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := (&fakeLW{}).onList(listOf("10", cm("a", "one", "5")))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		stop := start(t, inf)
		defer stop()
		synctest.Wait()
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if err, _ := inf.lastError(); err != nil {
			t.Fatalf("failed before WatchOpenTimeout: %v", err)
		}
		lw.onWatch(watchWith(false, watch.Event{Type: watch.Added, Object: cm("a", "two", "11")}))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if err, _ := inf.lastError(); !errors.Is(err, ErrWatchStalled) {
			t.Fatalf("last error %v, want ErrWatchStalled", err)
		}
		if _, ok := inf.Lister().GetKey(Key{Namespace: "a", Name: "two"}); !ok {
			t.Fatalf("the next watch's event is missing; calls %q", lw.callLog())
		}
	})
}
