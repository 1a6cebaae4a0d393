package promqueue_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/workqueue"
	"github.com/kubego/kubego/workqueue/promqueue"
)

// values gathers reg and returns each series' value by metric name (the
// sample count for histograms), failing on a series without name="want".
func values(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]float64)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != 1 || m.GetLabel()[0].GetName() != "name" || m.GetLabel()[0].GetValue() != name {
				t.Fatalf("%s has labels %v, want name=%q", f.GetName(), m.GetLabel(), name)
			}
			switch {
			case m.Gauge != nil:
				out[f.GetName()] = m.GetGauge().GetValue()
			case m.Counter != nil:
				out[f.GetName()] = m.GetCounter().GetValue()
			case m.Histogram != nil:
				out[f.GetName()] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

func TestMetricsFollowTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		m, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "things"})
		if err != nil {
			t.Fatal(err)
		}
		q := workqueue.New(workqueue.Options[string]{Metrics: m})
		defer q.ShutDown()

		q.Add("a")
		q.Add("a")
		q.Add("b")
		time.Sleep(2 * time.Second) // the bubble's fake clock
		k, _ := q.Get(t.Context())
		time.Sleep(3 * time.Second)
		q.AddAfter("c", time.Minute)

		want := map[string]float64{
			"workqueue_adds_total":                        2,
			"workqueue_depth":                             1,
			"workqueue_queue_duration_seconds":            1,
			"workqueue_work_duration_seconds":             0,
			"workqueue_unfinished_work_seconds":           3,
			"workqueue_longest_running_processor_seconds": 3,
			"workqueue_retries_total":                     1,
		}
		if got := values(t, reg, "things"); !maps.Equal(got, want) {
			t.Fatalf("metrics\n got %v\nwant %v", got, want)
		}
		q.Done(k)
		want["workqueue_work_duration_seconds"] = 1
		want["workqueue_unfinished_work_seconds"] = 0
		want["workqueue_longest_running_processor_seconds"] = 0
		if got := values(t, reg, "things"); !maps.Equal(got, want) {
			t.Fatalf("metrics after Done\n got %v\nwant %v", got, want)
		}
	})
}

func TestQueuesShareARegistryByName(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if _, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "b"}); err != nil {
		t.Fatalf("a second queue with another name: %v", err)
	}
	_, err := promqueue.New(promqueue.Options{Registerer: reg, Name: "a"})
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		t.Fatalf("a second queue with the same name: %v, want AlreadyRegisteredError", err)
	}
}

func TestUnregisteredMetricsCanBeRegisteredLater(t *testing.T) {
	m, err := promqueue.New(promqueue.Options{Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(m); err != nil {
		t.Fatal(err)
	}
	// Before a queue attaches, the in-flight gauges read zero.
	if got := values(t, reg, "late"); len(got) != 7 || got["workqueue_unfinished_work_seconds"] != 0 {
		t.Fatalf("metrics %v", got)
	}
	q := workqueue.New(workqueue.Options[int]{Metrics: m})
	q.Add(1)
	if _, ok := q.Get(context.Background()); !ok {
		t.Fatal("Get failed")
	}
	q.ShutDown()
	if got := values(t, reg, "late"); got["workqueue_adds_total"] != 1 {
		t.Fatalf("metrics %v", got)
	}
}
