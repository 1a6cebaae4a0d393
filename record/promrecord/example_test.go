package promrecord_test

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/record/promrecord"
)

type discardSink struct{}

func (discardSink) Create(context.Context, *eventsv1.Event) error { return nil }
func (discardSink) UpdateSeries(context.Context, string, string, eventsv1.EventSeries) error {
	return nil
}

func ExampleNew() {
	reg := prometheus.NewRegistry() // never the global one
	m, err := promrecord.New(promrecord.Options{Registerer: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := record.New(discardSink{}, record.Options{Metrics: m})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec.Eventf(&corev1.Pod{}, nil, record.Normal, "Synced", "Sync", "no name: invalid")
	_ = rec.Shutdown(context.Background())

	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == "event_recorder_dropped_total" {
			s := f.GetMetric()[0]
			fmt.Println(f.GetName(), s.GetLabel()[0].GetValue(), s.GetCounter().GetValue())
		}
	}
	// Output: event_recorder_dropped_total invalid 1
}
