package fake_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	kclient "github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// inProcessPods is a typed Pod client of srv's in-process Config.
func inProcessPods(t *testing.T, srv *fake.Server) *kclient.Resource[*corev1.Pod] {
	t.Helper()
	rc, err := rest.NewClient(srv.InProcessConfig())
	if err != nil {
		t.Fatal(err)
	}
	return kclient.Typed[*corev1.Pod](kclient.New(rc, kclient.Options{})).Namespace("default")
}

func TestInProcessServesRequestsAndStreamsWatchesInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{BookmarkInterval: time.Minute}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "seed"}})
		defer srv.Close()
		pods := inProcessPods(t, srv)
		ctx := t.Context()

		list, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != "seed" {
			t.Fatalf("listed %d pods, want the seed", len(list.Items))
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// The event arrives while the watch's response is still open: the
		// body streams.
		ev := <-w.ResultChan()
		if p, ok := ev.Object.(*corev1.Pod); ev.Type != watch.Added || !ok || p.Name != "new" {
			t.Fatalf("first event %s %T, want ADDED pod new", ev.Type, ev.Object)
		}
		// Fake time drives the server's timers: an hour passes at once, and
		// the watch has had its periodic bookmarks.
		start := time.Now()
		time.Sleep(time.Hour)
		synctest.Wait()
		if ev := <-w.ResultChan(); ev.Type != watch.Bookmark {
			t.Fatalf("event after an idle hour %s, want BOOKMARK", ev.Type)
		}
		if d := time.Since(start); d != time.Hour {
			t.Fatalf("fake clock moved %s, want 1h", d)
		}
	})
}

// A watch's server side ends when its client hangs up, by closing the
// body or by cancelling the request's context, though the server stays
// open: every goroutine of the request is gone before the bubble ends
// (synctest.Test fails otherwise).
func TestInProcessHangingUpAWatchEndsItsHandler(t *testing.T) {
	for _, tt := range []struct {
		name   string
		hangUp func(w *rest.WatchStream, cancel context.CancelFunc)
	}{
		{"stop closes the body", func(w *rest.WatchStream, _ context.CancelFunc) { w.Stop() }},
		{"the request's context is cancelled", func(_ *rest.WatchStream, cancel context.CancelFunc) { cancel() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Never closed: a handler still running would be reported.
				srv := fake.NewServer(fake.Options{})
				pods := inProcessPods(t, srv)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				w, err := pods.Watch(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				tt.hangUp(w, cancel)
				for range w.ResultChan() {
				}
				synctest.Wait()
			})
		})
	}
}

func TestInProcessCancellingARequestReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		remove := srv.Delay(fake.Match{Verb: "list"}, time.Hour)
		defer remove()
		pods := inProcessPods(t, srv)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		_, err := pods.List(ctx, metav1.ListOptions{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("List = %v, want the context's deadline", err)
		}
		if d := time.Since(start); d != time.Minute {
			t.Fatalf("List returned after %s of fake time, want its 1m deadline", d)
		}
		synctest.Wait() // the delayed handler has seen the cancellation and ended
	})
}

func TestInProcessRequestsAfterCloseFailWithErrClosed(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	pods := inProcessPods(t, srv)
	srv.Close()
	if _, err := pods.Get(t.Context(), "any", metav1.GetOptions{}); !errors.Is(err, fake.ErrClosed) {
		t.Fatalf("Get after Close = %v, want ErrClosed", err)
	}
}

func TestInProcessCloseEndsOpenWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		pods := inProcessPods(t, srv)
		w, err := pods.Watch(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		for range w.ResultChan() {
		}
		w.Stop()
	})
}

// An informer lists and watches through the in-process transport, and
// stops cleanly with its context: nothing is left running in the bubble.
func TestInProcessInformerSyncsAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "seed"}})
		defer srv.Close()
		pods := inProcessPods(t, srv)
		inf := informer.New(pods.ListerWatcher(), informer.Options[*corev1.Pod]{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		if err := inf.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, ok := inf.Lister().Namespace("default").Get("new"); !ok {
			t.Fatal("the informer has not seen the created pod once everything settled")
		}
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v", err)
		}
	})
}
