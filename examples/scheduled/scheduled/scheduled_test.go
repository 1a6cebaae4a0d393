package scheduled_test

import (
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/scheduled/scheduled"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

// A day and a half of an hourly schedule, in fake time: the controller
// records each due moment once, at that moment, and nothing between
// moments. The manager, its informers and the fake API server all run in
// the bubble (the in-process fake), so time moves only when the test
// sleeps, and only once everything else waits.
func TestRecordsEachDueMomentAtItsTime(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ctrl, err := scheduled.Setup(mgr, scheduled.Options{})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, mgr)
		cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
		created, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name:        "hourly",
			Labels:      map[string]string{scheduled.Label: "true"},
			Annotations: map[string]string{scheduled.Every: "1h"},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := created.CreationTimestamp.Time
		check := func(wantRuns int, wantLast time.Time) {
			t.Helper()
			kubegotest.Settle(t, ctrl)
			cm, err := cms.Get(t.Context(), "hourly", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			last := ""
			if !wantLast.IsZero() {
				last = wantLast.UTC().Format(time.RFC3339)
			}
			if got := cm.Annotations[scheduled.LastRun]; got != last {
				t.Fatalf("at +%s: last-run %q, want %q", time.Since(start), got, last)
			}
			runs := ""
			if wantRuns > 0 {
				runs = strconv.Itoa(wantRuns)
			}
			if got := cm.Annotations[scheduled.Runs]; got != runs {
				t.Fatalf("at +%s: runs %q, want %q", time.Since(start), got, runs)
			}
		}

		check(0, time.Time{})
		time.Sleep(time.Hour - time.Second)
		check(0, time.Time{}) // not yet due
		for n := 1; n <= 36; n++ {
			time.Sleep(time.Second) // the moment comes
			check(n, start.Add(time.Duration(n)*time.Hour))
			time.Sleep(time.Hour - time.Second) // nothing more until the next
			check(n, start.Add(time.Duration(n)*time.Hour))
		}
	})
	t.Logf("36 hours of schedule took %s of real time", time.Since(realStart))
}

// A ConfigMap whose period is refused is left alone, not retried.
func TestRefusedPeriodIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{})
		defer srv.Close()
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ctrl, err := scheduled.Setup(mgr, scheduled.Options{})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, mgr)
		cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
		for name, every := range map[string]string{"short": "1s", "garbled": "hourly"} {
			if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: name, Labels: map[string]string{scheduled.Label: "true"}, Annotations: map[string]string{scheduled.Every: every},
			}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(24 * time.Hour)
		kubegotest.Settle(t, ctrl)
		for _, name := range []string{"short", "garbled"} {
			cm, err := cms.Get(t.Context(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := cm.Annotations[scheduled.LastRun]; ok {
				t.Errorf("ConfigMap %s with a refused period was run", name)
			}
		}
	})
}
