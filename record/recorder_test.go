package record

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

func newRecorder(t *testing.T, sink Sink, mod func(*Options)) *Recorder {
	t.Helper()
	o := Options{ReportingController: "example.com/test", ReportingInstance: "test-1"}
	if mod != nil {
		mod(&o)
	}
	r, err := New(sink, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func shutdown(t *testing.T, r *Recorder) {
	t.Helper()
	if err := r.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
}

func TestRepeatedEventsAreOneSeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		p := pod("web")
		for i := range 100 {
			r.Eventf(p, nil, Warning, "BackOff", "Restarting", "restarting %s", "web")
			if i == 0 {
				synctest.Wait() // the first one is created alone
			}
			time.Sleep(time.Second)
		}
		shutdown(t, r)
		evs := sink.list()
		if len(evs) != 1 {
			t.Fatalf("%d events stored, want 1", len(evs))
		}
		ev := evs[0]
		if count(ev) != 100 || ev.Note != "restarting web" || ev.Type != "Warning" || ev.Reason != "BackOff" || ev.Action != "Restarting" {
			t.Fatalf("stored %+v, want a series of 100", ev)
		}
		if got, want := ev.Series.LastObservedTime.Time, ev.EventTime.Time.Add(99*time.Second); !got.Equal(want) {
			t.Fatalf("lastObservedTime %v, want %v", got, want)
		}
		if ev.ReportingController != "example.com/test" || ev.ReportingInstance != "test-1" {
			t.Fatalf("reporting %q/%q", ev.ReportingController, ev.ReportingInstance)
		}
		if ev.Regarding.Kind != "Pod" || ev.Regarding.APIVersion != "v1" || ev.Regarding.Name != "web" || ev.Namespace != "ns" {
			t.Fatalf("regarding %+v in namespace %q", ev.Regarding, ev.Namespace)
		}
		if errs := content.IsDNS1123Subdomain(ev.Name); len(errs) > 0 {
			t.Fatalf("event name %q: %v", ev.Name, errs)
		}
		creates, updates := sink.counts()
		// 99 s of repeats at most one series write per 10 s, plus the flush.
		if creates != 1 || updates > 11 || updates < 9 {
			t.Fatalf("%d creates and %d series updates, want 1 and about 10", creates, updates)
		}
		st := r.Stats()
		if st.Created != 1 || st.Aggregated != 99 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestDifferentEventsAreNotAggregated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		p := pod("web")
		r.Eventf(p, nil, Normal, "Scheduled", "Binding", "to node a")
		r.Eventf(p, nil, Normal, "Scheduled", "Binding", "to node b")  // other note
		r.Eventf(p, nil, Warning, "Scheduled", "Binding", "to node a") // other type
		r.Eventf(p, nil, Normal, "Pulled", "Binding", "to node a")     // other reason
		r.Eventf(p, nil, Normal, "Scheduled", "Pulling", "to node a")  // other action
		r.Eventf(pod("db"), nil, Normal, "Scheduled", "Binding", "to node a")
		r.Eventf(p, pod("db"), Normal, "Scheduled", "Binding", "to node a") // related
		shutdown(t, r)
		evs := sink.list()
		if len(evs) != 7 {
			t.Fatalf("%d events, want 7", len(evs))
		}
		related := 0
		for _, ev := range evs {
			if count(ev) != 1 {
				t.Errorf("event %s has count %d", ev.Name, count(ev))
			}
			if ev.Related != nil {
				related++
				if ev.Related.Name != "db" || ev.Related.Kind != "Pod" {
					t.Errorf("related %+v", ev.Related)
				}
			}
		}
		if related != 1 {
			t.Fatalf("%d events with a related object, want 1", related)
		}
	})
}

func TestSeriesEndsAfterWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		p := pod("web")
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		time.Sleep(DefaultSeriesWindow + time.Second)
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		shutdown(t, r)
		evs := sink.list()
		if len(evs) != 2 || count(evs[0])+count(evs[1]) != 3 {
			t.Fatalf("events %d with counts; want 2 events (a series of 2, then a new one)", len(evs))
		}
	})
}

func TestSpamLimitPerObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		noisy, quiet := pod("noisy"), pod("quiet")
		for i := range 40 {
			r.Eventf(noisy, nil, Warning, "Failed", "Sync", "attempt %d", i)
		}
		r.Eventf(quiet, nil, Normal, "Synced", "Sync", "ok")
		synctest.Wait()
		if st := r.Stats(); st.Created != 26 || st.DroppedSpam != 15 {
			t.Fatalf("stats %+v, want 26 created and 15 spam drops", st)
		}
		// One token comes back every 5 minutes.
		time.Sleep(DefaultSpamRefill)
		r.Eventf(noisy, nil, Warning, "Failed", "Sync", "attempt %d", 40)
		r.Eventf(noisy, nil, Warning, "Failed", "Sync", "attempt %d", 41)
		// Repeats of an Event already started take no token.
		r.Eventf(noisy, nil, Warning, "Failed", "Sync", "attempt %d", 40)
		shutdown(t, r)
		if st := r.Stats(); st.Created != 27 || st.DroppedSpam != 16 || st.Aggregated != 1 {
			t.Fatalf("stats %+v, want 27 created, 16 spam drops, 1 aggregated", st)
		}
		if n := len(sink.list()); n != 27 {
			t.Fatalf("%d events stored, want 27", n)
		}
	})
}

type countingMetrics struct {
	mu      sync.Mutex
	dropped map[DropReason]int
	writes  int
}

func (m *countingMetrics) Dropped(reason DropReason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dropped == nil {
		m.dropped = map[DropReason]int{}
	}
	m.dropped[reason]++
}

func (m *countingMetrics) Wrote(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
}

func TestFullBufferDropsWithoutBlocking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.gate = make(chan struct{}) // the server does not answer
		m := &countingMetrics{}
		// One writer, so the buffer alone holds what is not in flight.
		r := newRecorder(t, sink, func(o *Options) { o.BufferSize = 10; o.SpamBurst = 1000; o.Metrics = m; o.Writers = 1 })
		r.Eventf(pod("p"), nil, Normal, "R", "A", "first")
		synctest.Wait() // the writer is stuck writing "first"
		for i := range 20 {
			r.Eventf(pod("p"), nil, Normal, "R", "A", "n%d", i) // returns although nothing is written
		}
		st := r.Stats()
		if st.Created != 11 || st.DroppedBufferFull != 10 || m.dropped[DropBufferFull] != 10 {
			t.Fatalf("stats %+v metrics %v, want 11 created and 10 buffer drops", st, m.dropped)
		}
		close(sink.gate)
		shutdown(t, r)
		if n := len(sink.list()); n != 11 {
			t.Fatalf("%d events stored, want 11", n)
		}
		if m.writes != 11 {
			t.Fatalf("%d writes reported, want 11", m.writes)
		}
	})
}

// A controller that records an Event per object as it starts emits a burst
// of one per object, faster than the server takes them; with the defaults a
// burst of 5,000 is written whole.
func TestStartupBurstIsWrittenWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		for i := range 5000 {
			r.Eventf(pod(fmt.Sprintf("foo-%05d", i)), nil, Normal, "Synced", "Sync", "Foo synced successfully")
		}
		shutdown(t, r)
		st := r.Stats()
		if n := len(sink.list()); n != 5000 || st.Created != 5000 || st.DroppedBufferFull != 0 {
			t.Fatalf("%d Events stored, stats %+v; want all 5000 created, none dropped", n, st)
		}
	})
}

func TestWritersBoundTheWritesInFlight(t *testing.T) {
	for _, writers := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d writers", writers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sink := newMemSink()
				sink.gate = make(chan struct{})
				r := newRecorder(t, sink, func(o *Options) { o.Writers = writers })
				for i := range 10 {
					r.Eventf(pod(fmt.Sprint("p", i)), nil, Normal, "R", "A", "n")
				}
				synctest.Wait() // the writers are blocked in the sink
				sink.mu.Lock()
				inflight := sink.inflight
				sink.mu.Unlock()
				close(sink.gate)
				shutdown(t, r)
				if inflight != writers || sink.maxInflight != writers {
					t.Fatalf("%d writes in flight (at most %d), want %d", inflight, sink.maxInflight, writers)
				}
				if n := len(sink.list()); n != 10 {
					t.Fatalf("%d Events stored, want 10", n)
				}
			})
		})
	}
}

// stallingSink holds every create of an Event about the object named
// stall until release is closed or ctx ends; the rest go straight through.
type stallingSink struct {
	*memSink
	stall   string
	release chan struct{}
}

func (s *stallingSink) Create(ctx context.Context, ev *eventsv1.Event) error {
	if ev.Regarding.Name == s.stall {
		select {
		case <-s.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.memSink.Create(ctx, ev)
}

func TestAStalledWriteHoldsBackOnlyItsWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := &stallingSink{memSink: newMemSink(), stall: "slow", release: make(chan struct{})}
		r := newRecorder(t, sink, func(o *Options) { o.Writers = 2 })
		r.Eventf(pod("slow"), nil, Normal, "R", "A", "n")
		synctest.Wait() // one writer is stuck on "slow"
		for i := range 5 {
			r.Eventf(pod(fmt.Sprint("p", i)), nil, Normal, "R", "A", "n")
		}
		synctest.Wait()
		if n := len(sink.list()); n != 5 {
			t.Errorf("%d Events stored while one write is stalled, want the other 5", n)
		}
		close(sink.release)
		shutdown(t, r)
		if n := len(sink.list()); n != 6 {
			t.Fatalf("%d Events stored, want 6", n)
		}
	})
}

func TestShutdownFlushesPendingSeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, func(o *Options) { o.SeriesInterval = time.Hour })
		p := pod("web")
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		synctest.Wait()
		for range 5 {
			r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		}
		synctest.Wait()
		if evs := sink.list(); count(evs[0]) != 1 {
			t.Fatalf("series written before its interval: count %d", count(evs[0]))
		}
		shutdown(t, r)
		if evs := sink.list(); count(evs[0]) != 6 {
			t.Fatalf("count after Shutdown %d, want 6", count(evs[0]))
		}
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		if st := r.Stats(); st.DroppedShutdown != 1 {
			t.Fatalf("Eventf after Shutdown: stats %+v, want one shutdown drop", st)
		}
		if err := r.Shutdown(t.Context()); err != nil {
			t.Fatalf("second Shutdown = %v", err)
		}
	})
}

func TestShutdownDeadlineAbandonsWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.gate = make(chan struct{}) // never opened
		r := newRecorder(t, sink, nil)
		r.Eventf(pod("a"), nil, Normal, "R", "A", "one")
		r.Eventf(pod("b"), nil, Normal, "R", "A", "two")
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start := time.Now()
		err := r.Shutdown(ctx)
		var se *ShutdownError
		if !errors.As(err, &se) || se.Unwritten != 2 || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown = %v, want a ShutdownError with 2 unwritten", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("Shutdown took %v, want its 3s deadline", d)
		}
		// synctest.Test fails if the worker goroutine is still alive.
	})
}

func TestWriteFailures(t *testing.T) {
	tests := []struct {
		name        string
		fail        func(calls int) error
		wantStored  int
		wantDropped uint64
	}{
		{"transient errors are retried", func(n int) error {
			if n < 3 {
				return errors.New("connection reset")
			}
			return nil
		}, 1, 0},
		{"server overload is retried", func(n int) error {
			if n < 2 {
				return apierrors.NewTooManyRequests("slow down", 1)
			}
			return nil
		}, 1, 0},
		{"rejected events are not retried", func(int) error {
			return apierrors.NewBadRequest("no")
		}, 0, 1},
		{"retries stop after MaxAttempts", func(int) error {
			return apierrors.NewServiceUnavailable("down")
		}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sink := newMemSink()
				calls := 0
				sink.fail = func(string) error { calls++; return tt.fail(calls) }
				r := newRecorder(t, sink, nil)
				r.Eventf(pod("a"), nil, Normal, "R", "A", "x")
				time.Sleep(2 * time.Minute)
				shutdown(t, r)
				if n := len(sink.list()); n != tt.wantStored {
					t.Fatalf("%d stored, want %d", n, tt.wantStored)
				}
				if st := r.Stats(); st.DroppedWriteFailed != tt.wantDropped {
					t.Fatalf("stats %+v, want %d write failures", st, tt.wantDropped)
				}
			})
		})
	}
}

func TestDeletedEventIsRecreatedWithItsSeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		p := pod("web")
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		synctest.Wait()
		sink.deleteAll() // the Event's TTL passed
		r.Eventf(p, nil, Normal, "Synced", "Sync", "ok")
		shutdown(t, r)
		evs := sink.list()
		if len(evs) != 1 || count(evs[0]) != 2 {
			t.Fatalf("%d events; want the series of 2 recreated", len(evs))
		}
	})
}

func TestInvalidEventsAreDropped(t *testing.T) {
	var nilPod *corev1.Pod
	tests := []struct {
		name      string
		regarding runtime0
		related   runtime0
		typ       Type
		reason    string
		action    string
		field     string
	}{
		{"nil regarding", nil, nil, Normal, "R", "A", "regarding"},
		{"typed nil regarding", nilPod, nil, Normal, "R", "A", "regarding"},
		{"unknown kind", &unknown{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, nil, Normal, "R", "A", "regarding"},
		{"regarding without name", &corev1.Pod{}, nil, Normal, "R", "A", "regarding"},
		{"reference without kind", &corev1.ObjectReference{Name: "x"}, nil, Normal, "R", "A", "regarding"},
		{"bad related", pod("a"), &unknown{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, Normal, "R", "A", "related"},
		{"bad type", pod("a"), nil, "Error", "R", "A", "type"},
		{"empty reason", pod("a"), nil, Normal, "", "A", "reason"},
		{"long action", pod("a"), nil, Normal, "R", strings.Repeat("a", 129), "action"},
	}
	sink := newMemSink()
	r := newRecorder(t, sink, nil)
	defer shutdown(t, r)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.prepare(tt.regarding, tt.related, tt.typ, tt.reason, tt.action, "note", nil)
			var ie *InvalidEventError
			if !errors.As(err, &ie) || ie.Field != tt.field || !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("prepare = %v, want an InvalidEventError on %s", err, tt.field)
			}
			before := r.Stats().DroppedInvalid
			r.Eventf(tt.regarding, tt.related, tt.typ, tt.reason, tt.action, "note")
			if r.Stats().DroppedInvalid != before+1 {
				t.Fatal("invalid event not counted")
			}
		})
	}
}

func TestEventDetails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		r := newRecorder(t, sink, nil)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "Node_1.Example"}}
		r.Eventf(node, nil, Normal, "Ready", "Check", strings.Repeat("é", 600)) // 1200 bytes
		ref := &corev1.ObjectReference{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "ns", Name: "w"}
		r.Eventf(ref, nil, Normal, "Made", "Make", "100%") // no args: used as is
		shutdown(t, r)
		evs := sink.list()
		if len(evs) != 2 {
			t.Fatalf("%d events", len(evs))
		}
		for _, ev := range evs {
			if errs := content.IsDNS1123Subdomain(ev.Name); len(errs) > 0 {
				t.Errorf("name %q: %v", ev.Name, errs)
			}
			switch ev.Regarding.Kind {
			case "Node":
				if ev.Namespace != "default" || len(ev.Note) > 1024 || !strings.HasPrefix(ev.Name, "node-1.example.") {
					t.Errorf("node event %s in %q with a %d-byte note", ev.Name, ev.Namespace, len(ev.Note))
				}
			case "Widget":
				if ev.Namespace != "ns" || ev.Note != "100%" || ev.Regarding.APIVersion != "example.com/v1" {
					t.Errorf("widget event %+v", ev)
				}
			}
		}
	})
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		field string
	}{
		{"zero options are usable", Options{}, ""},
		{"bad controller name", Options{ReportingController: "not a name"}, "ReportingController"},
		{"long instance", Options{ReportingInstance: strings.Repeat("x", 129)}, "ReportingInstance"},
		{"negative buffer", Options{BufferSize: -1}, "BufferSize"},
		{"negative writers", Options{Writers: -1}, "Writers"},
		{"negative window", Options{SeriesWindow: -time.Second}, "SeriesWindow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(newMemSink(), tt.opts)
			var oe *OptionsError
			switch {
			case tt.field == "" && err != nil:
				t.Fatal(err)
			case tt.field == "":
				shutdown(t, r)
			case !errors.As(err, &oe) || oe.Field != tt.field || !errors.Is(err, ErrInvalidOptions):
				t.Fatalf("New = %v, want an OptionsError on %s", err, tt.field)
			}
		})
	}
}

func TestEventName(t *testing.T) {
	tests := []struct{ obj, want string }{
		{"web", "web.ff"},
		{"system:controller", "system-controller.ff"},
		{"..a..b.", "a.b.ff"},
		{"", "event.ff"},
		{"-", "event.ff"},
		{strings.Repeat("a", 300), strings.Repeat("a", 250) + ".ff"},
	}
	for _, tt := range tests {
		if got := eventName(tt.obj, 255); got != tt.want {
			t.Errorf("eventName(%q) = %q, want %q", tt.obj, got, tt.want)
		}
		if errs := content.IsDNS1123Subdomain(eventName(tt.obj, 255)); len(errs) > 0 {
			t.Errorf("eventName(%q) invalid: %v", tt.obj, errs)
		}
	}
}

func BenchmarkEventfRepeated(b *testing.B) {
	sink := newMemSink()
	r, _ := New(sink, Options{})
	defer r.Shutdown(context.Background())
	p := pod("web")
	b.ReportAllocs()
	for b.Loop() {
		r.Eventf(p, nil, Normal, "Synced", "Sync", "synced %s", "web")
	}
}

func BenchmarkEventfDistinct(b *testing.B) {
	sink := newMemSink()
	r, _ := New(sink, Options{SpamBurst: 1 << 30})
	defer r.Shutdown(context.Background())
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = pod(fmt.Sprint("p", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Eventf(pods[i%len(pods)], nil, Normal, "Synced", "Sync", "n")
		i++
	}
}

func FuzzEventName(f *testing.F) {
	for _, s := range []string{"web", "system:controller", "..a..b.", "", "-", "A_B.c-D", strings.Repeat("x.", 200), "ünï.cödé"} {
		f.Add(s, int64(12345))
	}
	f.Fuzz(func(t *testing.T, obj string, n int64) {
		if n < 0 {
			n = -n
		}
		if n < 0 { // math.MinInt64
			n = 0
		}
		name := eventName(obj, n)
		if errs := content.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Fatalf("eventName(%q, %d) = %q: %v", obj, n, name, errs)
		}
	})
}

// Options.Kinds names the kind of an object without TypeMeta that the
// scheme does not know (a custom resource built in code); its error makes
// the event invalid.
func TestKindOfNamesCustomObjects(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	kindOf := func(obj runtime.Object) (schema.GroupVersionKind, error) {
		if _, ok := obj.(*unknown); ok {
			return widget, nil
		}
		return schema.GroupVersionKind{}, errors.New("not mine")
	}
	sink := newMemSink()
	r := newRecorder(t, sink, func(o *Options) { o.Kinds = kindFunc(kindOf) })
	defer shutdown(t, r)
	ev, err := r.prepare(&unknown{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns"}}, nil, Normal, "Made", "Make", "note", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.regarding.APIVersion != "example.com/v1" || ev.regarding.Kind != "Widget" {
		t.Fatalf("regarding = %+v, want example.com/v1 Widget", ev.regarding)
	}
	_, err = r.prepare(pod("a"), nil, Normal, "R", "A", "note", nil)
	var ie *InvalidEventError
	if !errors.As(err, &ie) || ie.Field != "regarding" {
		t.Fatalf("prepare with a failing KindOf = %v, want an InvalidEventError on regarding", err)
	}
}

// kindFunc adapts a function to client.KindResolver.
type kindFunc func(runtime.Object) (schema.GroupVersionKind, error)

func (f kindFunc) KindOf(obj runtime.Object) (schema.GroupVersionKind, error) { return f(obj) }
