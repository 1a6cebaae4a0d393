package informer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec/protodec"
)

// The benchmarks of this file compare the cache's representations: decoded
// objects (shared values, the default), decoded objects without sharing,
// and compact (Options.Compact). The objects have the shapes of the
// repository's bench fixtures, with what kube-apiserver adds when it
// stores a Pod (defaults, uid, creation time, status).

// heapText returns n random lower-case letters.
func heapText(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

// shapePod returns Pod i: with unique unset, realistic (replicas share
// images, label values, env names and requests); with unique set, no
// label, annotation, image, env name or value or request recurs.
func shapePod(i int, unique bool) *corev1.Pod {
	r := rand.New(rand.NewPCG(1, uint64(i)))
	u := func(s string) string {
		if unique {
			return s + "-" + heapText(r, 6)
		}
		return s
	}
	env := make([]corev1.EnvVar, 8)
	for j := range env {
		env[j] = corev1.EnvVar{Name: u(fmt.Sprintf("SETTING_%d", j)), Value: fmt.Sprintf("value-%d-of-pod-%d", j, i)}
	}
	q := func(s string, base int) resource.Quantity {
		if unique {
			return resource.MustParse(fmt.Sprintf("%d%s", base+i, s))
		}
		return resource.MustParse(fmt.Sprintf("%d%s", base, s))
	}
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: q("m", 100), corev1.ResourceMemory: q("Mi", 128)},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: q("m", 500), corev1.ResourceMemory: q("Mi", 256)},
	}
	container := func(name, image string, ports ...corev1.ContainerPort) corev1.Container {
		return corev1.Container{
			Name: name, Image: image, Ports: ports, Resources: res,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy: corev1.PullIfNotPresent,
		}
	}
	app := container("app", u("registry.example.com/shop/app:v1.2.3"),
		corev1.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
		corev1.ContainerPort{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP})
	app.Env = env
	side := container("sidecar", u("registry.example.com/infra/proxy:v0.9.1"),
		corev1.ContainerPort{Name: "proxy", ContainerPort: 15001, Protocol: corev1.ProtocolTCP})
	side.Args = []string{"--listen=:15001", "--upstream=127.0.0.1:8080"}
	grace, toleration := int64(30), int64(300)
	prio, links, preempt := int32(0), true, corev1.PreemptLowerPriority
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              fmt.Sprintf("pod-%06d", i),
			Namespace:         fmt.Sprintf("ns-%02d", i/1000),
			UID:               types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))),
			ResourceVersion:   fmt.Sprint(100000 + i),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, i%3600, 0, time.UTC)),
			Labels: map[string]string{
				u("app"):     u(fmt.Sprintf("app-%d", i%50)),
				u("tier"):    u([]string{"web", "api", "worker"}[i%3]),
				u("release"): u(fmt.Sprintf("r%d", i%7)),
			},
			Annotations: map[string]string{
				u("example.com/owner"):    u(fmt.Sprintf("team-%d", i%13)),
				"example.com/config-hash": fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15),
			},
		},
		Spec: corev1.PodSpec{
			Containers:                    []corev1.Container{app, side},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &toleration},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &toleration},
			},
			Priority:           &prio,
			EnableServiceLinks: &links,
			PreemptionPolicy:   &preempt,
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable},
	}
}

// dataObject returns the name, labels and 1–10 KiB of unique data in four
// keys of object i of a ConfigMap or Secret.
func dataObject(i int) (metav1.ObjectMeta, map[string]string) {
	r := rand.New(rand.NewPCG(2, uint64(i)))
	n := 1024 + (i*7919)%(9*1024+1)
	data := map[string]string{}
	for k := range 4 {
		data[fmt.Sprintf("file-%d-%s.conf", k, heapText(r, 6))] = heapText(r, n/4)
	}
	return metav1.ObjectMeta{Name: fmt.Sprintf("obj-%06d", i), Namespace: fmt.Sprintf("ns-%02d", i/1000),
		ResourceVersion: fmt.Sprint(100000 + i), Labels: map[string]string{"config-" + heapText(r, 6): heapText(r, 10)}}, data
}

// cacheMode is one representation of the cache.
type cacheMode struct {
	name string
	opts func(o *Options[*corev1.Pod])
}

// heapOf returns the live heap per object of a cache of objects decoded
// one by one from raws (as a watch decodes them) and stored through the
// informer's sink with opts, as the reflector stores a list, and the live
// heap per object when every object has been received but the list is not
// yet committed: what an initial list holds just before the cache is
// published (the peak of a sync, short of the garbage in flight).
func heapOf[T Object](b *testing.B, raws [][]byte, decode func([]byte) T, opts Options[T]) (perObject, prepared float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	opts.MutationDetection = DetectOff
	inf := New(Funcs[T]{}, opts)
	s := (*sink[T])(inf)
	st := s.stage()
	for _, raw := range raws {
		st.Put(decode(raw), false, false)
	}
	var mid runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&mid)
	st.Commit("1")
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(inf)
	runtime.KeepAlive(raws)
	n := float64(len(raws))
	return float64(after.HeapAlloc-before.HeapAlloc) / n, float64(mid.HeapAlloc-before.HeapAlloc) / n
}

// heapShapes are the shapes of BenchmarkCacheHeap: each returns the
// protobuf encoding of object i.
var heapShapes = []struct {
	name string
	kind string
	raw  func(i int) []byte
}{
	{"pods-realistic", "pod", func(i int) []byte { return must(shapePod(i, false).Marshal()) }},
	{"pods-unique", "pod", func(i int) []byte { return must(shapePod(i, true).Marshal()) }},
	{"configmaps-1-10KiB", "configmap", func(i int) []byte {
		m, d := dataObject(i)
		return must((&corev1.ConfigMap{ObjectMeta: m, Data: d}).Marshal())
	}},
	{"secrets-1-10KiB", "secret", func(i int) []byte {
		m, d := dataObject(i)
		sd := make(map[string][]byte, len(d))
		for k, v := range d {
			sd[k] = []byte(v)
		}
		return must((&corev1.Secret{ObjectMeta: m, Data: sd, Type: corev1.SecretTypeOpaque}).Marshal())
	}},
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// benchDecode decodes raw into a new *T by plan, as a watch does without
// a sharing table.
func benchDecode[T any, PT interface {
	*T
	Object
}](d *protodec.Decoder) func([]byte) PT {
	return func(raw []byte) PT {
		obj := PT(new(T))
		if _, err := d.Unmarshal(raw, obj, nil); err != nil {
			panic(err)
		}
		return obj
	}
}

// BenchmarkCacheHeap reports the live heap per cached object (bytes/obj)
// and for the whole cache (MiB) of 20,000 objects of each shape, for each
// representation. Heap sizes do not depend on the machine's load.
func BenchmarkCacheHeap(b *testing.B) {
	const n = 20000
	for _, shape := range heapShapes {
		raws := make([][]byte, n)
		size := 0
		for i := range raws {
			raws[i] = shape.raw(i)
			size += len(raws[i])
		}
		for _, mode := range []string{"decoded-shared", "decoded-unshared", "compact"} {
			b.Run(shape.name+"/"+mode, func(b *testing.B) {
				var per, prep float64
				for b.Loop() {
					switch shape.kind {
					case "pod":
						per, prep = heapOf(b, raws, benchDecode[corev1.Pod](new(protodec.Decoder)), Options[*corev1.Pod]{DisableSharing: mode == "decoded-unshared", Decoded: mode != "compact"})
					case "configmap":
						per, prep = heapOf(b, raws, benchDecode[corev1.ConfigMap](new(protodec.Decoder)), Options[*corev1.ConfigMap]{DisableSharing: mode == "decoded-unshared", Decoded: mode != "compact"})
					case "secret":
						per, prep = heapOf(b, raws, benchDecode[corev1.Secret](new(protodec.Decoder)), Options[*corev1.Secret]{DisableSharing: mode == "decoded-unshared", Decoded: mode != "compact"})
					}
				}
				b.ReportMetric(per, "bytes/obj")
				b.ReportMetric(per*n/(1<<20), "MiB")
				b.ReportMetric(prep, "received-bytes/obj")
				b.ReportMetric(float64(size)/n, "encoded-bytes/obj")
			})
		}
	}
}

// readCache returns a store of 20,000 realistic Pods in 20 namespaces of
// 1,000, indexed by their label app (50 values), in the representation
// compact selects.
func readCache(compact bool) *cacheStore[*corev1.Pod] {
	byApp := map[string]IndexFunc[*corev1.Pod]{"app": func(p *corev1.Pod) []string { return []string{p.Labels["app"]} }}
	st := newStore(byApp, nil, packerIf[*corev1.Pod](compact))
	items := make([]*corev1.Pod, 20000)
	for i := range items {
		items[i] = shapePod(i, false)
	}
	st.replace(items, true)
	return st
}

// BenchmarkCacheGet measures Get by key on 20,000 realistic Pods, with
// the p50 and p99 of single calls.
func BenchmarkCacheGet(b *testing.B) {
	for _, m := range storeModes {
		b.Run(m.name, func(b *testing.B) {
			st := readCache(m.compact)
			benchGetLatency(b, st)
		})
	}
}

// benchGetLatency runs Gets of random keys of st, reporting the p50 and
// p99 of single calls.
func benchGetLatency[T Object](b *testing.B, st *cacheStore[T]) {
	keys := st.Keys()
	r := rand.New(rand.NewPCG(3, 3))
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		k := keys[r.IntN(len(keys))]
		t0 := time.Now()
		if _, ok := st.Get(k); !ok {
			b.Fatal("missing key")
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkCacheList measures List of one namespace of 1,000 Pods, of
// one label selector within it (48 Pods), one index value (400 Pods) and
// the whole cache of 20,000.
func BenchmarkCacheList(b *testing.B) {
	sel := labels.SelectorFromSet(labels.Set{"tier": "web", "release": "r1"})
	for _, m := range storeModes {
		st := readCache(m.compact)
		l := Lister[*corev1.Pod]{store: st}
		b.Run("namespace-1000/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(l.Namespace("ns-07").List(nil)) != 1000 {
					b.Fatal("short list")
				}
			}
		})
		b.Run("namespace-selector/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.Namespace("ns-07").List(sel)
			}
		})
		b.Run("index-400/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if objs, _ := l.ByIndex("app", "app-7"); len(objs) != 400 {
					b.Fatalf("ByIndex found %d", len(objs))
				}
			}
		})
		b.Run("all-20000/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(l.List(nil)) != 20000 {
					b.Fatal("short list")
				}
			}
		})
	}
}

// BenchmarkReadCost measures what one read of a realistic Pod costs in
// each way of handing out an object nobody else holds: decoding its
// protobuf by plan (the compact cache), by the generated method, decoding
// its JSON (a JSON-bytes cache), and deep-copying a decoded object (a
// cache of recently decoded objects would pay this to stay safe).
func BenchmarkReadCost(b *testing.B) {
	pod := shapePod(7, false)
	raw := must(pod.Marshal())
	js, err := json.Marshal(pod)
	if err != nil {
		b.Fatal(err)
	}
	var d protodec.Decoder
	b.Run("protobuf-plan", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(raw)), "bytes")
		for b.Loop() {
			var p corev1.Pod
			if _, err := d.Unmarshal(raw, &p, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protobuf-plan-aliased", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p corev1.Pod
			if _, err := d.Unmarshal(raw, &p, protodec.Alias{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protobuf-generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p corev1.Pod
			if err := p.Unmarshal(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(js)), "bytes")
		for b.Loop() {
			var p corev1.Pod
			if err := json.Unmarshal(js, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("deepcopy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = pod.DeepCopy()
		}
	})
}

// BenchmarkCacheEvent measures one watch event of a realistic Pod through
// an informer (reflector, sink, store, one running handler that reads the
// old and new object) in each representation. A compact cache encodes the
// event's object and decodes both objects for the handler.
func BenchmarkCacheEvent(b *testing.B) {
	for _, m := range storeModes {
		b.Run(m.name, func(b *testing.B) {
			w := watch.NewFakeWithChanSize(1024, false)
			lw := Funcs[*corev1.Pod]{
				ListFunc: func(contextT, metav1.ListOptions) (ListResult[*corev1.Pod], error) {
					return ListResult[*corev1.Pod]{ResourceVersion: "1"}, nil
				},
				WatchFunc: func(contextT, metav1.ListOptions) (watch.Interface, error) { return w, nil },
			}
			inf := New[*corev1.Pod](lw, Options[*corev1.Pod]{MutationDetection: DetectOff, Decoded: !m.compact, Reflector: ReflectorOptions{DisableStreaming: true}})
			var got atomic.Int64
			inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{
				UpdateFunc: func(old, o *corev1.Pod) { _ = old.Name + o.Name; got.Add(1) },
				AddFunc:    func(*corev1.Pod, bool) { got.Add(1) },
			}, HandlerOptions{})
			stop := start(b, inf)
			defer stop()
			inf.WaitForSync(b.Context())
			raws := make([][]byte, 1000)
			for i := range raws {
				raws[i] = must(shapePod(i, false).Marshal())
			}
			var d protodec.Decoder
			decode := benchDecode[corev1.Pod](&d)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				// Each event a newer version of a freshly decoded object.
				p := decode(raws[n%len(raws)])
				p.ResourceVersion = strconv.Itoa(1000000 + n)
				w.Modify(p)
				n++
			}
			for got.Load() < int64(n) {
				time.Sleep(time.Millisecond) // a benchmark waiting for its handler; not a test
			}
		})
	}
}

// BenchmarkCacheSync measures the informer's own cost of receiving 20,000
// realistic Pods (decoded beforehand, as a watch hands them over) into an
// empty cache with one handler registered, in each representation.
func BenchmarkCacheSync(b *testing.B) {
	const n = 20000
	raws := make([][]byte, n)
	for i := range raws {
		raws[i] = must(shapePod(i, false).Marshal())
	}
	var d protodec.Decoder
	decode := benchDecode[corev1.Pod](&d)
	for _, m := range storeModes {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				pods := make([]*corev1.Pod, n)
				for i := range pods {
					pods[i] = decode(raws[i])
				}
				inf := New(Funcs[*corev1.Pod]{}, Options[*corev1.Pod]{MutationDetection: DetectOff, Decoded: !m.compact})
				inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{}, HandlerOptions{}) // not running: buffers only
				s := (*sink[*corev1.Pod])(inf)
				b.StartTimer()
				st := s.stage()
				for i, p := range pods {
					pods[i] = nil
					st.Put(p, false, false)
				}
				st.Commit("1")
			}
		})
	}
}

// BenchmarkCacheChurnHeap reports the live heap per cached ConfigMap of
// 1–8 KiB (bytes/obj) and its ratio to the bytes of the encodings stored
// (uncompressed: their data repeats, so compressed they would be a few
// hundred bytes, and this measures the chunks),
// after 2,000 objects were each updated fifty times on average (a tenth
// of the changes deletes, the object coming back at its next update).
func BenchmarkCacheChurnHeap(b *testing.B) {
	const n = 2000
	var per, ratio float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		pack := newPacker[*corev1.ConfigMap]()
		pack.plainOnly = true
		s := newStore[*corev1.ConfigMap](nil, nil, pack)
		items := make([]*corev1.ConfigMap, n)
		for i := range items {
			items[i] = churnCM(i, i+1)
		}
		s.replace(items, true)
		items = nil
		r := rand.New(rand.NewPCG(5, 5))
		for rv := n + 1; rv <= 51*n; rv++ {
			i := r.IntN(n)
			if r.IntN(10) == 0 {
				s.remove(KeyOf(churnCM(i, 0)))
				continue
			}
			s.put(churnCM(i, rv))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		enc := 0 // the bytes of the encodings stored
		s.cur.Load().each(func(sh *shard[*corev1.ConfigMap]) {
			for i := range sh.items {
				enc += int(sh.items[i].e.pk.n)
			}
		})
		per = float64(after.HeapAlloc-before.HeapAlloc) / float64(s.Len())
		ratio = float64(after.HeapAlloc-before.HeapAlloc) / float64(enc)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(per, "bytes/obj")
	b.ReportMetric(ratio, "heap/encoded")
}

// BenchmarkSyncPeakHeap runs an informer through the streaming initial
// sync of 20,000 Pods (each event decoded from its encoding as the watch
// arrives, as a watch decodes it) and reports the highest heap seen while
// it synced (peak-MiB, sampled every 100µs from runtime/metrics, garbage
// included, at the process's GOGC), the live heap after the sync
// (live-MiB, after a collection) and the bytes allocated per Pod.
func BenchmarkSyncPeakHeap(b *testing.B) {
	const n = 20000
	for _, shape := range heapShapes[:2] {
		raws := make([][]byte, n)
		for i := range raws {
			raws[i] = shape.raw(i)
		}
		for _, decoded := range []bool{false, true} {
			name := shape.name + "/compact"
			if decoded {
				name = shape.name + "/decoded"
			}
			b.Run(name, func(b *testing.B) {
				var peak, live, alloc float64
				for b.Loop() {
					peak, live, alloc = syncPeak(b, raws, decoded)
				}
				b.ReportMetric(peak, "peak-MiB")
				b.ReportMetric(live, "live-MiB")
				b.ReportMetric(alloc, "alloc-bytes/obj")
			})
		}
	}
}

func syncPeak(b *testing.B, raws [][]byte, decoded bool) (peakMiB, liveMiB, allocPerObj float64) {
	var d protodec.Decoder
	decode := benchDecode[corev1.Pod](&d)
	w := watch.NewFakeWithChanSize(0, false)
	lw := Funcs[*corev1.Pod]{
		WatchFunc: func(contextT, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	base := heapObjects()
	stopSampling := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		var top uint64
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			if h := heapObjects(); h > top {
				top = h
			}
			select {
			case <-stopSampling:
				sampled <- top
				return
			case <-tick.C:
			}
		}
	}()
	inf := New[*corev1.Pod](lw, Options[*corev1.Pod]{MutationDetection: DetectOff, Decoded: decoded})
	stop := start(b, inf)
	go func() {
		for _, raw := range raws {
			w.Add(decode(raw))
		}
		end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "200000", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		w.Action(watch.Bookmark, end)
	}()
	if err := inf.WaitForSync(b.Context()); err != nil {
		b.Fatal(err)
	}
	close(stopSampling)
	top := <-sampled
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	alloc := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(raws))
	runtime.GC()
	live := heapObjects()
	runtime.KeepAlive(inf)
	stop()
	return float64(top-base) / (1 << 20), float64(live-base) / (1 << 20), alloc
}

// heapObjects returns the bytes of heap objects, live and not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
