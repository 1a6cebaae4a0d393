package record_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/record"
)

// memorySink stands in for record.NewSink(client): it keeps what the API
// server would store.
type memorySink struct {
	mu     sync.Mutex
	events map[string]*eventsv1.Event
}

func (s *memorySink) Create(_ context.Context, ev *eventsv1.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events[ev.Namespace+"/"+ev.Name] = ev.DeepCopy()
	return nil
}

func (s *memorySink) UpdateSeries(_ context.Context, namespace, name string, series eventsv1.EventSeries) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events[namespace+"/"+name].Series = &series
	return nil
}

func Example() {
	sink := &memorySink{events: map[string]*eventsv1.Event{}}
	rec, err := record.New(sink, record.Options{ReportingController: "example.com/labeler"})
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	for range 3 {
		rec.Eventf(pod, nil, record.Warning, "BackOff", "Restart", "back-off restarting container %s", "app")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rec.Shutdown(ctx); err != nil {
		fmt.Println(err)
	}
	for _, ev := range sink.events {
		fmt.Printf("%s %s %s/%s: %s (x%d)\n", ev.Type, ev.Reason, ev.Regarding.Kind, ev.Regarding.Name, ev.Note, ev.Series.Count)
	}
	st := rec.Stats()
	fmt.Println("created:", st.Created, "aggregated:", st.Aggregated)
	// Output:
	// Warning BackOff Pod/web: back-off restarting container app (x3)
	// created: 1 aggregated: 2
}
