package workqueue

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// drain takes every ready key without blocking and marks it Done.
func drain(q *Queue[string]) []string {
	var keys []string
	for q.Len() > 0 {
		k, _ := q.Get(context.Background())
		keys = append(keys, k)
		q.Done(k)
	}
	return keys
}

func TestAddAfter(t *testing.T) {
	type addAfter struct {
		key string
		d   time.Duration
	}
	type check struct {
		at   time.Duration // time since start
		want []string      // keys that became ready since the last check, in order
	}
	tests := []struct {
		name   string
		adds   []addAfter
		checks []check
	}{
		{
			name:   "a key is not ready before its delay and ready at it",
			adds:   []addAfter{{"a", 10 * time.Second}},
			checks: []check{{9 * time.Second, nil}, {10 * time.Second, []string{"a"}}},
		},
		{
			name:   "a zero or negative delay adds at once",
			adds:   []addAfter{{"a", 0}, {"b", -time.Second}},
			checks: []check{{0, []string{"a", "b"}}},
		},
		{
			name: "keys become ready in time order, not call order",
			adds: []addAfter{{"c", 30 * time.Second}, {"a", 10 * time.Second}, {"b", 20 * time.Second}},
			checks: []check{
				{15 * time.Second, []string{"a"}},
				{25 * time.Second, []string{"b"}},
				{35 * time.Second, []string{"c"}},
			},
		},
		{
			name:   "keys due by the same moment come out in time order",
			adds:   []addAfter{{"b", 10 * time.Second}, {"a", 5 * time.Second}, {"c", 7 * time.Second}},
			checks: []check{{time.Minute, []string{"a", "c", "b"}}},
		},
		{
			name:   "a waiting key added again sooner keeps only the earlier time",
			adds:   []addAfter{{"a", 10 * time.Second}, {"a", 5 * time.Second}},
			checks: []check{{5 * time.Second, []string{"a"}}, {time.Minute, nil}},
		},
		{
			name:   "a waiting key added again later keeps its earlier time",
			adds:   []addAfter{{"a", 5 * time.Second}, {"a", 10 * time.Second}},
			checks: []check{{5 * time.Second, []string{"a"}}, {time.Minute, nil}},
		},
		{
			name: "many waiting keys fire in order",
			adds: []addAfter{
				{"e", 5 * time.Second}, {"d", 4 * time.Second}, {"a", time.Second},
				{"c", 3 * time.Second}, {"b", 2 * time.Second}, {"f", 6 * time.Second},
			},
			checks: []check{{3 * time.Second, []string{"a", "b", "c"}}, {6 * time.Second, []string{"d", "e", "f"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			q := New(Options[string]{Clock: clock})
			defer q.ShutDown()
			for _, a := range tt.adds {
				q.AddAfter(a.key, a.d)
			}
			var now time.Duration
			for _, c := range tt.checks {
				clock.Advance(c.at - now)
				now = c.at
				if got := drain(q); !slices.Equal(got, c.want) {
					t.Fatalf("at %v: ready %v, want %v", c.at, got, c.want)
				}
			}
			if n := clock.Created(); n > 1 {
				t.Fatalf("queue created %d timers, want at most 1", n)
			}
			if n := clock.Pending(); n > 1 {
				t.Fatalf("%d timers pending, want at most 1", n)
			}
		})
	}
}

func TestAddAfterUsesOneTimerForManyKeys(t *testing.T) {
	clock := newFakeClock()
	q := New(Options[int]{Clock: clock})
	defer q.ShutDown()
	for k := range 1000 {
		q.AddAfter(k, time.Duration(1000-k)*time.Millisecond)
	}
	if clock.Created() != 1 || clock.Pending() != 1 {
		t.Fatalf("%d timers created, %d pending; want 1 and 1", clock.Created(), clock.Pending())
	}
	clock.Advance(time.Second)
	if q.Len() != 1000 {
		t.Fatalf("Len = %d, want 1000", q.Len())
	}
	if clock.Pending() != 0 {
		t.Fatalf("%d timers pending with nothing waiting", clock.Pending())
	}
}

func TestAddAfterThenPlainAddRunsTwice(t *testing.T) {
	clock := newFakeClock()
	q := New(Options[string]{Clock: clock})
	defer q.ShutDown()
	q.AddAfter("a", time.Second)
	q.Add("a")
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("ready now: %v", got)
	}
	clock.Advance(time.Second)
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("ready after the delay: %v", got)
	}
}

func TestShutDownDropsWaitingKeysAndStopsTheTimer(t *testing.T) {
	clock := newFakeClock()
	q := New(Options[string]{Clock: clock})
	q.AddAfter("a", time.Second)
	q.ShutDown()
	if clock.Pending() != 0 {
		t.Fatalf("%d timers pending after ShutDown", clock.Pending())
	}
	clock.Advance(time.Minute)
	if q.Len() != 0 || q.delayed.len() != 0 {
		t.Fatalf("Len %d, waiting %d after ShutDown", q.Len(), q.delayed.len())
	}
}

// With the system clock inside a synctest bubble, a Get waiting for a
// delayed key returns exactly at the delay and leaves no goroutine behind.
func TestAddAfterOnTheSystemClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		start := time.Now()
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("a", time.Second)
		for _, want := range []struct {
			key string
			at  time.Duration
		}{{"a", time.Second}, {"b", 2 * time.Second}} {
			k, ok := q.Get(t.Context())
			if !ok || k != want.key || time.Since(start) != want.at {
				t.Fatalf("Get = %q, %v at %v; want %q at %v", k, ok, time.Since(start), want.key, want.at)
			}
			q.Done(k)
		}
		q.AddAfter("c", time.Hour) // pending at shutdown: its timer must stop
		q.ShutDown()
	})
}

func TestAddAfterGivesBackTheMemoryOfABurst(t *testing.T) {
	clock := newFakeClock()
	q := New(Options[int]{Clock: clock})
	defer q.ShutDown()
	for k := range 5000 {
		q.AddAfter(k, time.Duration(k+1)*time.Microsecond)
	}
	clock.Advance(time.Second)
	if q.Len() != 5000 {
		t.Fatalf("Len = %d, want 5000", q.Len())
	}
	if q.delayed.items != nil || len(q.delayed.index) != 0 {
		t.Fatalf("delay heap kept %d slots after emptying", cap(q.delayed.items))
	}
	q.AddAfter(1, time.Second) // the heap still works
	clock.Advance(time.Second)
	if q.delayed.len() != 0 {
		t.Fatal("key still waiting")
	}
}
