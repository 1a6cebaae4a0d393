package manager_test

import (
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/record"
)

// An Event repeated every minute becomes one Event whose series counts the
// occurrences (written at most once per series interval), and a repeat
// after the series window starts a new Event: default windows, in fake
// time, through the Manager's recorder and the in-process fake.
func TestEventSeriesInFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "settings"}}
		srv := fake.NewServer(fake.Options{}, cm)
		defer srv.Close()
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := mgr.EventRecorder("example.com/settings")
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, mgr)
		events := func() []*eventsv1.Event {
			t.Helper()
			synctest.Wait()
			list, err := client.Typed[*eventsv1.Event](mgr.Client()).Namespace("app").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return list.Items
		}

		first := time.Now()
		for i := range 6 { // at 0, 1, ..., 5 minutes
			if i > 0 {
				time.Sleep(time.Minute)
			}
			rec.Eventf(cm, nil, record.Warning, "Invalid", "Validate", "settings are invalid")
		}
		time.Sleep(record.DefaultSeriesInterval) // the series write is due
		evs := events()
		if len(evs) != 1 {
			t.Fatalf("%d Events after six occurrences a minute apart, want one", len(evs))
		}
		s := evs[0].Series
		if s == nil || s.Count != 6 || !s.LastObservedTime.Time.Equal(first.Add(5*time.Minute)) {
			t.Fatalf("series %+v, want count 6, last observed at +5m", s)
		}

		// Past the series window, the same Event starts anew.
		time.Sleep(record.DefaultSeriesWindow)
		rec.Eventf(cm, nil, record.Warning, "Invalid", "Validate", "settings are invalid")
		if evs := events(); len(evs) != 2 {
			t.Fatalf("%d Events after a repeat past the series window, want two", len(evs))
		}
	})
}
