package workqueue

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kubego/kubego/clock/clocktest"
)

// recorder is a Metrics that logs every event as a string.
type recorder struct {
	events   []string
	inFlight func() InFlight
}

func (r *recorder) Added()      { r.events = append(r.events, "added") }
func (r *recorder) Depth(n int) { r.events = append(r.events, fmt.Sprintf("depth %d", n)) }
func (r *recorder) Started(waited time.Duration) {
	r.events = append(r.events, "started after "+waited.String())
}
func (r *recorder) Finished(worked time.Duration) {
	r.events = append(r.events, "finished after "+worked.String())
}
func (r *recorder) Retried()                 { r.events = append(r.events, "retried") }
func (r *recorder) Attach(f func() InFlight) { r.inFlight = f }

func TestMetricsEvents(t *testing.T) {
	clock := newFakeClock()
	rec := &recorder{}
	q := New(Options[string]{Clock: clock, Metrics: rec})
	ctx := context.Background()

	q.Add("a")
	q.Add("a") // deduplicated: not reported
	clock.Advance(time.Second)
	k, _ := q.Get(ctx)
	clock.Advance(2 * time.Second)
	q.Add("a") // re-add while processing: reported, waits from now
	clock.Advance(3 * time.Second)
	if f := rec.inFlight(); f != (InFlight{Count: 1, Total: 5 * time.Second, Longest: 5 * time.Second}) {
		t.Fatalf("InFlight = %+v", f)
	}
	q.Done(k)
	clock.Advance(time.Second)
	k, _ = q.Get(ctx)
	q.Done(k)
	q.AddAfter("b", time.Second)
	clock.Advance(time.Second)
	if f := rec.inFlight(); f != (InFlight{}) {
		t.Fatalf("InFlight with nothing held = %+v", f)
	}
	q.ShutDown()

	want := []string{
		"added", "depth 1",
		"started after 1s", "depth 0",
		"added",
		"finished after 5s", "depth 1",
		"started after 4s", "depth 0",
		"finished after 0s",
		"retried",
		"added", "depth 1",
		"depth 0",
	}
	if !slices.Equal(rec.events, want) {
		t.Fatalf("events:\n got %q\nwant %q", rec.events, want)
	}
}

// A key's wait runs from its first add, whichever priority it was added
// at, to the Get that takes it; its work from that Get to Done.
func TestMetricsTimesAcrossPriorities(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  func(q *Queue[string], clock *clocktest.Manual)
		want []string
	}{
		{
			name: "low-priority key waits from its AddLow",
			add: func(q *Queue[string], clock *clocktest.Manual) {
				q.AddLow("a")
				clock.Advance(3 * time.Second)
			},
			want: []string{"added", "depth 1", "started after 3s", "depth 0", "finished after 2s"},
		},
		{
			name: "promoted key keeps the time of its AddLow",
			add: func(q *Queue[string], clock *clocktest.Manual) {
				q.AddLow("a")
				clock.Advance(time.Second)
				q.Add("a")
				clock.Advance(2 * time.Second)
			},
			want: []string{"added", "depth 1", "depth 1", "started after 3s", "depth 0", "finished after 2s"},
		},
		{
			name: "key added again while held waits from that add",
			add: func(q *Queue[string], clock *clocktest.Manual) {
				q.Add("a")
				k, _ := q.Get(context.Background())
				clock.Advance(time.Second)
				q.AddLow("a")
				clock.Advance(time.Second)
				q.Done(k)
				clock.Advance(time.Second)
			},
			want: []string{
				"added", "depth 1", "started after 0s", "depth 0",
				"added", "finished after 2s", "depth 1",
				"started after 2s", "depth 0", "finished after 2s",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			rec := &recorder{}
			q := New(Options[string]{Clock: clock, Metrics: rec})
			defer q.ShutDown()
			tc.add(q, clock)
			k, ok := q.Get(context.Background())
			if !ok || k != "a" {
				t.Fatalf("Get = %q, %v", k, ok)
			}
			clock.Advance(2 * time.Second)
			if f := rec.inFlight(); f != (InFlight{Count: 1, Total: 2 * time.Second, Longest: 2 * time.Second}) {
				t.Fatalf("InFlight = %+v", f)
			}
			q.Done(k)
			if !slices.Equal(rec.events, tc.want) {
				t.Fatalf("events:\n got %q\nwant %q", rec.events, tc.want)
			}
		})
	}
}
