package record_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestStoredEventsShowSeriesAndSpamLimit emits one Event many times and a
// burst of different Events about another object, and reads back what the
// API server stored.
func TestStoredEventsShowSeriesAndSpamLimit(t *testing.T) {
	cp := testenv.Shared(t)
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	ctx := t.Context()
	ns := fmt.Sprintf("rec-%d", time.Now().UnixNano())
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	steady, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "steady"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "noisy"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	rec, err := record.New(record.NewSink(c), record.Options{
		ReportingController: "kubego.io/record-test",
		ReportingInstance:   "test-0",
		SeriesInterval:      200 * time.Millisecond, // exercise series patches during the run
	})
	if err != nil {
		t.Fatal(err)
	}
	const repeats, burst = 60, 40
	for i := range repeats {
		rec.Eventf(steady, noisy, record.Normal, "Synced", "Sync", "synced %s", steady.Name)
		if i%10 == 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := range burst {
		rec.Eventf(noisy, nil, record.Warning, "SyncFailed", "Sync", "attempt %d failed", i)
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := rec.Shutdown(sctx); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	st := rec.Stats()
	t.Logf("stats: %+v", st)
	if st.DroppedSpam != burst-record.DefaultSpamBurst || st.DroppedWriteFailed != 0 {
		t.Fatalf("stats %+v: want %d spam drops and no failed writes", st, burst-record.DefaultSpamBurst)
	}

	list, err := client.Typed[*eventsv1.Event](c).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var steadyEvents, noisyEvents []*eventsv1.Event
	for _, ev := range list.Items {
		if ev.ReportingController != "kubego.io/record-test" || ev.ReportingInstance != "test-0" {
			t.Errorf("event %s reported by %q/%q", ev.Name, ev.ReportingController, ev.ReportingInstance)
		}
		switch ev.Regarding.Name {
		case "steady":
			steadyEvents = append(steadyEvents, ev)
		case "noisy":
			noisyEvents = append(noisyEvents, ev)
		}
	}
	if len(steadyEvents) != 1 {
		t.Fatalf("%d events about steady, want one series", len(steadyEvents))
	}
	ev := steadyEvents[0]
	if ev.Series == nil || ev.Series.Count != repeats {
		t.Fatalf("series of steady: %+v, want count %d", ev.Series, repeats)
	}
	if ev.Regarding.UID != steady.UID || ev.Regarding.Kind != "ConfigMap" || ev.Related == nil || ev.Related.Name != "noisy" {
		t.Fatalf("regarding %+v related %+v", ev.Regarding, ev.Related)
	}
	if ev.Series.LastObservedTime.Time.Before(ev.EventTime.Time) {
		t.Fatalf("lastObservedTime %v before eventTime %v", ev.Series.LastObservedTime, ev.EventTime)
	}
	if len(noisyEvents) != record.DefaultSpamBurst {
		t.Fatalf("%d events about noisy, want the spam limit's %d", len(noisyEvents), record.DefaultSpamBurst)
	}
}
