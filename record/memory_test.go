package record

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
)

// countingSink accepts every write at once, keeps nothing, and closes
// done at the want-th creation.
type countingSink struct {
	creates atomic.Int64
	want    int64
	done    chan struct{}
}

func (s *countingSink) Create(context.Context, *eventsv1.Event) error {
	if s.creates.Add(1) == s.want {
		close(s.done)
	}
	return nil
}

func (*countingSink) UpdateSeries(context.Context, string, string, eventsv1.EventSeries) error {
	return nil
}

// BenchmarkTrackedSeriesMemory reports the heap a Recorder holds per
// tracked series once its Events are written: CacheSize distinct Events
// (one per object, as a controller recording a Synced Event per object
// does), live heap measured after GC, the objects themselves excluded.
func BenchmarkTrackedSeriesMemory(b *testing.B) {
	const n = DefaultCacheSize
	objs := make([]*corev1.Pod, n)
	for i := range objs {
		objs[i] = pod(fmt.Sprintf("foo-%05d", i))
		objs[i].UID = types.UID(fmt.Sprintf("0d6c4a4e-3a2b-4c1d-9e8f-%012d", i))
		objs[i].ResourceVersion = fmt.Sprint(100000 + i)
	}
	var perSeries float64
	for b.Loop() {
		before := liveHeap()
		sink := &countingSink{want: n, done: make(chan struct{})}
		r, err := New(sink, Options{ReportingController: "example.com/foo", ReportingInstance: "foo-1", BufferSize: n})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range objs {
			r.Eventf(p, nil, Normal, "Synced", "Sync", "Foo synced successfully")
		}
		select {
		case <-sink.done:
		case <-time.After(time.Minute):
			b.Fatalf("%+v after a minute, want %d Events written", r.Stats(), n)
		}
		perSeries = float64(liveHeap()-before) / n
		runtime.KeepAlive(r)
		if err := r.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(perSeries, "B/series")
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
