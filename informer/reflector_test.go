package informer

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// logSink records what a reflector delivers.
type logSink struct{ log []string }

func (s *logSink) Prepare(o *corev1.ConfigMap) *corev1.ConfigMap { return o }
func (s *logSink) Replace(items []*corev1.ConfigMap, rv string) {
	s.log = append(s.log, "replace "+itoa(len(items))+" @"+rv)
}
func (s *logSink) Add(o *corev1.ConfigMap)    { s.log = append(s.log, "add "+KeyOf(o).String()) }
func (s *logSink) Update(o *corev1.ConfigMap) { s.log = append(s.log, "update "+KeyOf(o).String()) }
func (s *logSink) Delete(o *corev1.ConfigMap) { s.log = append(s.log, "delete "+KeyOf(o).String()) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// runUntilIdle runs r inside a synctest bubble until every goroutine is
// blocked, then stops it and waits for Run to return.
func runUntilIdle[T Object](t *testing.T, r *reflector[T]) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	synctest.Wait()
	cancel()
	<-done
}

func TestReflectorStep(t *testing.T) {
	t.Run("each step performs one action and names the next phase", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(
				watchWith(true, ev(watch.Added, cm("ns", "b", "11"))),
			)
			sink := &logSink{}
			r := newReflector[*corev1.ConfigMap](lw, sink, ReflectorOptions{DisableStreaming: true})
			s := &state[*corev1.ConfigMap]{backoff: backoffState{cfg: r.backoff}}
			ctx := t.Context()
			var phases []string
			for range 3 {
				r.step(ctx, s, time.Now())
				phases = append(phases, s.phase.String())
			}
			eq(t, "phases", phases, []string{"NeedWatch", "Watching", "NeedWatch"})
			eq(t, "sink", sink.log, []string{"replace 1 @10", "add ns/b"})
			if s.rv != "11" {
				t.Fatalf("rv = %q", s.rv)
			}
		})
	})
}

func TestReflectorStreaming(t *testing.T) {
	t.Run("after the initial stream a dropped watch resumes, and 410 restreams from the last version", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onWatch(
				watchWith(true, ev(watch.Added, cm("ns", "a", "1")), bookmark("5", true), ev(watch.Modified, cm("ns", "a", "6"))),
				watchWith(true, errEvent(gone())),
				watchWith(false, bookmark("9", true)),
			)
			sink := &logSink{}
			r := newReflector[*corev1.ConfigMap](lw, sink, ReflectorOptions{})
			runUntilIdle(t, r)
			eq(t, "calls", lw.callLog(), []string{
				"watch rv= match=NotOlderThan stream",
				"watch rv=6",
				"watch rv=6 match=NotOlderThan stream",
			})
			eq(t, "sink", sink.log, []string{"replace 1 @5", "update ns/a", "replace 0 @9"})
		})
	})

	t.Run("WaitForSync reports a stream that never finished", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onWatch(watchWith(false, ev(watch.Added, cm("ns", "a", "1"))))
			// The fallback LIST hangs (unscripted), so the cause stays.
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: ReflectorOptions{InitialEventsTimeout: 30 * time.Second}})
			stop := start(t, inf)
			defer stop()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := inf.WaitForSync(ctx)
			if !errors.Is(err, ErrInitialEventsNotFinished) {
				t.Fatalf("WaitForSync = %v", err)
			}
			eq(t, "calls", lw.callLog(), []string{"watch rv= match=NotOlderThan stream", "list rv="})
		})
	})

	t.Run("a too-large resourceVersion on relist retries from the latest", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tooLarge := apierrors.NewTimeoutError("Too large resource version", 1)
			tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
			lw := (&fakeLW{}).onList(listOf("10"), listErr(tooLarge), listOf("20")).onWatch(watchWith(true, errEvent(gone())))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "list rv=10 match=NotOlderThan", "list rv=", "watch rv=20"})
		})
	})
}

// compressedWatch is a watch whose server compresses it, as
// rest.WatchStream reports.
type compressedWatch struct{ *watch.FakeWatcher }

func (compressedWatch) Compressed() bool { return true }

func TestReflectorReopensCompressedStreams(t *testing.T) {
	t.Run("a compressed initial stream is followed by a plain watch from its end bookmark", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stream := watch.NewFakeWithChanSize(4, false)
			stream.Add(cm("ns", "a", "1"))
			stream.Action(watch.Bookmark, bookmark("5", true).Object)
			// Never read: the stream is closed after the bookmark, and the
			// plain watch delivers the same event.
			stream.Modify(cm("ns", "a", "6"))
			lw := (&fakeLW{}).onWatch(
				func(metav1.ListOptions) (watch.Interface, error) { return compressedWatch{stream}, nil },
				watchWith(false, ev(watch.Modified, cm("ns", "a", "6"))),
			)
			sink := &logSink{}
			r := newReflector[*corev1.ConfigMap](lw, sink, ReflectorOptions{})
			runUntilIdle(t, r)
			eq(t, "calls", lw.callLog(), []string{"watch rv= match=NotOlderThan stream", "watch rv=5"})
			eq(t, "sink", sink.log, []string{"replace 1 @5", "update ns/a"})
			if !stream.IsStopped() {
				t.Error("the compressed stream was not stopped")
			}
		})
	})

	t.Run("a compressed watch that resumes is kept", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			resumed := watch.NewFakeWithChanSize(2, false)
			resumed.Modify(cm("ns", "a", "6"))
			lw := (&fakeLW{}).onList(listOf("5", cm("ns", "a", "1"))).onWatch(
				func(metav1.ListOptions) (watch.Interface, error) { return compressedWatch{resumed}, nil },
			)
			sink := &logSink{}
			r := newReflector[*corev1.ConfigMap](lw, sink, ReflectorOptions{DisableStreaming: true})
			runUntilIdle(t, r)
			eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=5"})
			eq(t, "sink", sink.log, []string{"replace 1 @5", "update ns/a"})
		})
	})
}

func TestRelistDoesNotRetainPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		page := func(rvB string) listFn {
			arr := []corev1.ConfigMap{*cm("ns", "a", "1"), *cm("ns", "b", rvB)}
			return func(metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
				return ListResult[*corev1.ConfigMap]{Items: []*corev1.ConfigMap{&arr[0], &arr[1]}, ResourceVersion: "10"}, nil
			}
		}
		var second []*corev1.ConfigMap
		relist := page("2")
		lw := (&fakeLW{}).onList(page("1"), func(o metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
			res, err := relist(o)
			second = res.Items
			return res, err
		}).onWatch(watchWith(true, errEvent(gone())))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		stop := start(t, inf)
		defer stop()
		synctest.Wait()
		b, _ := inf.Lister().GetKey(Key{"ns", "b"})
		if b.ResourceVersion != "2" {
			t.Fatalf("b = %v", b.ResourceVersion)
		}
		if b == second[1] {
			t.Fatal("changed object still points into the relist page")
		}
		if a, _ := inf.Lister().GetKey(Key{"ns", "a"}); a == second[0] {
			t.Fatal("unchanged object was replaced by the relist copy")
		}
	})
}

// rvAtReplaceSink records the reflector's LastSyncResourceVersion at the
// moment each complete state is handed over: the moment an informer
// reports itself synced.
type rvAtReplaceSink struct {
	logSink
	r    *reflector[*corev1.ConfigMap]
	seen []string
}

func (s *rvAtReplaceSink) Replace(items []*corev1.ConfigMap, rv string) {
	s.seen = append(s.seen, s.r.LastSyncResourceVersion())
}

func TestReflectorSetsTheResourceVersionBeforeReportingASync(t *testing.T) {
	for _, tc := range []struct {
		name string
		lw   *fakeLW
		opts ReflectorOptions
	}{
		{"by a paginated list", (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(watchWith(true)), ReflectorOptions{DisableStreaming: true}},
		{"by a streaming list", (&fakeLW{}).onWatch(watchWith(true, ev(watch.Added, cm("ns", "a", "1")), bookmark("5", true))), ReflectorOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sink := &rvAtReplaceSink{}
				r := newReflector[*corev1.ConfigMap](tc.lw, sink, tc.opts)
				sink.r = r
				runUntilIdle(t, r)
				if len(sink.seen) != 1 || sink.seen[0] == "" {
					t.Fatalf("LastSyncResourceVersion during the sync: %q, want the synced state's", sink.seen)
				}
			})
		})
	}
}
