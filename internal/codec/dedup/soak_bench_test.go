package dedup

import (
	"runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkRewrites feeds one table a few objects rewritten many times,
// through a decoder as an informer's watch does: 30 ConfigMaps, 20,000
// writes of a new value, each write received twice (the write's event,
// then the event of a controller's mark). With "own values" (the soak's
// pattern) each write's value is new; with "values shared by all" every
// object is written in turn with the value of its round, as a stamp
// rolled out to every object. It reports the heap held by the table alone
// once the writes are done (table-B: the heap freed by dropping it while
// the cache is kept) beside the heap of the cache itself (cache-B), and
// the time per event.
func BenchmarkRewrites(b *testing.B) {
	const objects, writes = 30, 20000
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "own values", true: "values shared by all"}[shared]
		b.Run(name, func(b *testing.B) {
			raws := make([][2][]byte, writes)
			for i := range raws {
				value := i
				if shared {
					value = i / objects
				}
				for j, marked := range []bool{false, true} {
					raw, err := soakConfigMap("cm-"+strconv.Itoa(i%objects), value, marked).Marshal()
					if err != nil {
						b.Fatal(err)
					}
					raws[i][j] = raw
				}
			}
			var tableB, cacheB float64
			for b.Loop() {
				tab := New(Options{})
				cache := map[string]*corev1.ConfigMap{}
				for i := range raws {
					name := "cm-" + strconv.Itoa(i%objects)
					for _, raw := range raws[i] {
						cm := new(corev1.ConfigMap)
						s := tab.Begin([]byte("soak"), []byte(name))
						_, err := sharingDecoder.Unmarshal(raw, cm, s)
						s.End()
						if err != nil {
							b.Fatal(err)
						}
						cache[name] = cm
					}
				}
				b.StopTimer()
				withTable := heapInUse()
				runtime.KeepAlive(tab) // not after this line
				withCache := heapInUse()
				runtime.KeepAlive(cache)
				tableB += float64(withTable - withCache)
				cacheB += float64(withCache - heapInUse())
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*writes*2), "ns/event")
			b.ReportMetric(tableB/float64(b.N), "table-B")
			b.ReportMetric(cacheB/float64(b.N), "cache-B")
		})
	}
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
