package dedup

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/internal/codec/layout"
	"github.com/kubego/kubego/internal/codec/protodec"
)

// pod builds a realistic Pod from fresh allocations, as a decoder would.
func pod(i int) *corev1.Pod {
	fresh := func(s string) string { return strings.Clone(s) }
	q := func(s string) resource.Quantity { return resource.MustParse(s) }
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("pod-%d", i),
			Namespace: fresh("shop"),
			UID:       types.UID(fmt.Sprint("uid-", i)),
			Labels:    map[string]string{fresh("app"): fresh("web"), fresh("tier"): fmt.Sprintf("t%d", i%2)},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  fresh("app"),
			Image: fresh("registry.example.com/shop/app:v1"),
			Env:   []corev1.EnvVar{{Name: fresh("MODE"), Value: fmt.Sprintf("value-%d", i)}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("128Mi")},
			},
		}}},
	}
}

func TestObjectSharesEqualValues(t *testing.T) {
	tests := []struct {
		name  string
		check func(a, b *corev1.Pod) bool
		want  bool
	}{
		{"equal strings share their bytes", func(a, b *corev1.Pod) bool {
			return sameString(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image) && sameString(a.Namespace, b.Namespace)
		}, true},
		{"map keys share their bytes", func(a, b *corev1.Pod) bool {
			return sameString(a.Spec.Containers[0].Env[0].Name, b.Spec.Containers[0].Env[0].Name)
		}, true},
		{"equal label maps become one map", func(a, b *corev1.Pod) bool { return layout.SameMap(a.Labels, b.Labels) }, true},
		{"equal resource lists become one map", func(a, b *corev1.Pod) bool {
			return layout.SameMap(a.Spec.Containers[0].Resources.Requests, b.Spec.Containers[0].Resources.Requests)
		}, true},
		{"names are never shared", func(a, b *corev1.Pod) bool { return a.Name == b.Name }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := New(Options{})
			// Values are shared from their second sighting on.
			tab.Object(pod(4))
			a, b := pod(0), pod(2) // same labels: i%2 equal
			tab.Object(a)
			tab.Object(b)
			if got := tt.check(a, b); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestObjectKeepsDifferentValuesApart(t *testing.T) {
	tab := New(Options{})
	tab.Object(pod(2))
	tab.Object(pod(3))
	a, b := pod(0), pod(1) // labels differ in tier
	tab.Object(a)
	tab.Object(b)
	if layout.SameMap(a.Labels, b.Labels) {
		t.Fatal("different label maps were merged")
	}
	if a.Labels["tier"] != "t0" || b.Labels["tier"] != "t1" {
		t.Fatalf("labels changed: %v %v", a.Labels, b.Labels)
	}
	c := pod(2)
	c.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("200m")
	tab.Object(c)
	if got := c.Spec.Containers[0].Resources.Requests.Cpu().String(); got != "200m" {
		t.Fatalf("cpu = %s, want 200m", got)
	}
	if layout.SameMap(a.Spec.Containers[0].Resources.Requests, c.Spec.Containers[0].Resources.Requests) {
		t.Fatal("different resource lists were merged")
	}
}

func TestObjectPreservesMeaning(t *testing.T) {
	tab := New(Options{})
	for i := range 20 {
		p := pod(i)
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("1Gi"))}}}}
		before := p.DeepCopy()
		tab.Object(p)
		if !equality.Semantic.DeepEqual(before, p) {
			t.Fatalf("pod %d changed meaning", i)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A shared Quantity is read by many goroutines at once; its lazily cached
// string must already be set, or String would write (the race detector
// catches that).
func TestObjectFixesQuantityStrings(t *testing.T) {
	tab := New(Options{})
	p := pod(0)
	p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("1Gi"))}}}}
	tab.Object(p)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			_ = p.Spec.Volumes[0].EmptyDir.SizeLimit.String()
			for _, q := range p.Spec.Containers[0].Resources.Requests {
				_ = q.String()
			}
		})
	}
	wg.Wait()
}

func TestObjectIgnoresWhatItCannotWalk(t *testing.T) {
	tab := New(Options{})
	var nilPod *corev1.Pod
	n := 3
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Pod"}}
	for _, obj := range []any{nil, nilPod, &n, corev1.Pod{}, u, "text"} {
		tab.Object(obj) // must not panic
	}
}

func TestStringSkipsLongAndEmpty(t *testing.T) {
	tab := New(Options{})
	long := strings.Repeat("x", MaxStringLen+1)
	tab.shareString(long)
	tab.shareString(strings.Clone(long))
	if got := tab.shareString(strings.Clone(long)); sameString(got, long) {
		t.Fatal("a string over MaxStringLen was shared")
	}
	if tab.shareString("") != "" {
		t.Fatal("empty string changed")
	}
}

func TestGenerationsKeepRecurringValues(t *testing.T) {
	tab := New(Options{Strings: 4})
	tab.shareString(strings.Clone("recurring"))
	first := tab.shareString(strings.Clone("recurring"))
	for i := range 100 {
		tab.shareString(fmt.Sprintf("unique-%d", i))
		tab.shareString(fmt.Sprintf("unique-%d", i)) // twice: it enters the table
		if got := tab.shareString(strings.Clone("recurring")); !sameString(got, first) {
			t.Fatalf("after %d unique strings the recurring one was forgotten", i+1)
		}
	}
	if n := len(tab.strs.m); n > 8 {
		t.Fatalf("table holds %d strings, bound is 8", n)
	}
	if _, ok := tab.strs.get("unique-0"); ok {
		t.Fatal("a value seen once did not age out")
	}
}

type labels map[string]string
type limits map[corev1.ResourceName]resource.Quantity

type tree struct {
	Name     string
	Children []tree
	Next     *tree
	Tags     labels
	Max      limits
	hidden   string
}

func TestObjectWalksRecursiveAndNamedTypes(t *testing.T) {
	mk := func() *tree {
		return &tree{
			Name:     strings.Clone("root"),
			Children: []tree{{Name: strings.Clone("leaf"), Tags: labels{"a": strings.Clone("b")}}},
			Next:     &tree{Name: strings.Clone("next"), Max: limits{"cpu": resource.MustParse("1")}},
			Tags:     labels{"a": strings.Clone("b")},
			hidden:   strings.Clone("root"),
		}
	}
	tab := New(Options{})
	tab.Object(mk())
	a, b := mk(), mk()
	tab.Object(a)
	tab.Object(b)
	if !sameString(a.Name, b.Name) || !sameString(a.Next.Name, b.Next.Name) || !sameString(a.Children[0].Name, b.Children[0].Name) {
		t.Error("strings in a recursive type were not shared")
	}
	if !layout.SameMap(a.Tags, b.Tags) || !layout.SameMap(a.Tags, b.Children[0].Tags) {
		t.Error("named string maps were not shared")
	}
	if !layout.SameMap(a.Next.Max, b.Next.Max) {
		t.Error("named quantity maps were not shared")
	}
	if sameString(a.hidden, b.hidden) {
		t.Error("an unexported field was touched")
	}
	if !reflect.DeepEqual(a.Tags, labels{"a": "b"}) || func() string { q := a.Next.Max["cpu"]; return q.String() }() != "1" {
		t.Errorf("values changed: %v %v", a.Tags, a.Next.Max)
	}
}

func BenchmarkObjectPod(b *testing.B) {
	tab := New(Options{})
	pods := make([]*corev1.Pod, 1024)
	for i := range pods {
		pods[i] = pod(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		p := pods[i%len(pods)].DeepCopy()
		b.StartTimer()
		tab.Object(p)
	}
}

// BenchmarkObjectRealisticPods shares 20,000 decoded-like Pods whose env
// values and names are unique, as an informer's initial sync does; the
// reported time is per Pod.
func BenchmarkObjectRealisticPods(b *testing.B) {
	const n = 20000
	for b.Loop() {
		b.StopTimer()
		tab := New(Options{})
		pods := make([]*corev1.Pod, n)
		for i := range pods {
			p := pod(i)
			c := p.Spec.Containers[0]
			for j := range 7 {
				c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("SETTING_%d", j), Value: fmt.Sprintf("value-%d-of-pod-%d", j, i)})
			}
			p.Spec.Containers = append(p.Spec.Containers, c)
			p.Spec.Containers[1].Name = strings.Clone("sidecar")
			p.Annotations = map[string]string{"hash": fmt.Sprintf("%016x", i), "owner": fmt.Sprintf("team-%d", i%13)}
			pods[i] = p
		}
		b.StartTimer()
		for _, p := range pods {
			tab.Object(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
}

func TestObjectLikeTakesUnchangedValuesFromThePreviousVersion(t *testing.T) {
	tab := New(Options{})
	prev := pod(0)
	tab.Object(prev)
	next := pod(0)
	next.Spec.Containers[0].Image = "registry.example.com/shop/app:v2"
	next.Spec.Containers[0].Env = append(next.Spec.Containers[0].Env, corev1.EnvVar{Name: "NEW", Value: "x"})
	next.Labels["tier"] = "t9"
	want := next.DeepCopy()
	tab.ObjectLike(next, prev)
	if !equality.Semantic.DeepEqual(want, next) {
		t.Fatal("the update changed meaning")
	}
	if !sameString(next.Namespace, prev.Namespace) || !sameString(next.Spec.Containers[0].Name, prev.Spec.Containers[0].Name) {
		t.Error("unchanged strings were not taken from the previous version")
	}
	if layout.SameMap(next.Labels, prev.Labels) || next.Labels["tier"] != "t9" || prev.Labels["tier"] != "t0" {
		t.Errorf("changed labels: next %v prev %v", next.Labels, prev.Labels)
	}
	if !layout.SameMap(next.Spec.Containers[0].Resources.Requests, prev.Spec.Containers[0].Resources.Requests) {
		t.Error("unchanged resource list was not shared")
	}
	if prev.Spec.Containers[0].Image != "registry.example.com/shop/app:v1" || len(prev.Spec.Containers[0].Env) != 1 {
		t.Error("the previous version was modified")
	}
	same := pod(0)
	tab.ObjectLike(same, prev)
	if !layout.SameMap(same.Labels, prev.Labels) {
		t.Error("equal labels were not taken from the previous version")
	}
	other := pod(1)
	tab.ObjectLike(other, nil) // no previous version: plain Object
	tab.ObjectLike(other, &corev1.ConfigMap{})
}

func BenchmarkObjectLikeUpdate(b *testing.B) {
	tab := New(Options{})
	prev := pod(0)
	tab.Object(prev)
	nexts := make([]*corev1.Pod, 1024)
	for i := range nexts {
		nexts[i] = pod(0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tab.ObjectLike(nexts[i%len(nexts)], prev)
	}
}

// TestTableIsADecoderSharer: the decoder path shares strings and maps by
// their bytes from the second sighting on.
func TestTableIsADecoderSharer(t *testing.T) {
	var _ protodec.Sharer = Session{}
	tab := New(Options{})
	sess := tab.Begin(nil, nil) // an object of unknown name
	defer sess.End()
	a, b := sess.ShareBytes(0, []byte("nginx:1.27")), sess.ShareBytes(0, []byte("nginx:1.27"))
	c := sess.ShareBytes(0, []byte("nginx:1.27"))
	if unsafe.StringData(b) != unsafe.StringData(c) || a != "nginx:1.27" {
		t.Fatal("a recurring string is not shared from its second sighting")
	}
	typ := reflect.TypeFor[map[string]string]()
	raw := []byte("\x0a\x06\x0a\x01a\x12\x01b")
	m1 := reflect.ValueOf(map[string]string{"a": "b"})
	for i, wantHit := range []bool{false, false, true} {
		v, ok := sess.SharedMap(0, typ, raw)
		if ok != wantHit {
			t.Fatalf("sighting %d: hit %v, want %v", i+1, ok, wantHit)
		}
		if ok && v.UnsafePointer() != m1.UnsafePointer() {
			t.Fatal("a different map was returned")
		}
		if !ok {
			sess.KeepMap(0, typ, raw, m1)
		}
	}
	if _, ok := sess.SharedMap(0, typ, []byte("\x0a\x06\x0a\x01a\x12\x01c")); ok {
		t.Fatal("different bytes hit")
	}
}
