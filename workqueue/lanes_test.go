package workqueue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// laneOfKey puts "a3" in lane "a".
func laneOfKey(k string) string { return k[:1] }

func TestLanesAreServedInTurn(t *testing.T) {
	tests := []struct {
		name string
		lane func(string) string
		add  []string
		low  []string
		want []string
	}{
		{
			name: "without lanes a backlog is served before a later key",
			add:  []string{"a1", "a2", "a3", "a4", "b1", "c1"},
			want: []string{"a1", "a2", "a3", "a4", "b1", "c1"},
		},
		{
			name: "a backlog delays another lane's key by one turn",
			lane: laneOfKey,
			add:  []string{"a1", "a2", "a3", "a4", "b1", "c1"},
			want: []string{"a1", "b1", "c1", "a2", "a3", "a4"},
		},
		{
			name: "each lane keeps its own order",
			lane: laneOfKey,
			add:  []string{"b2", "a9", "b1", "a1", "b3"},
			want: []string{"b2", "a9", "b1", "a1", "b3"},
		},
		{
			name: "low-priority keys come after the others, in turn too",
			lane: laneOfKey,
			add:  []string{"c1"},
			low:  []string{"a1", "a2", "a3", "b1", "b2"},
			want: []string{"c1", "a1", "b1", "a2", "b2", "a3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Options[string]{Lane: tt.lane})
			defer q.ShutDown()
			for _, k := range tt.low {
				q.AddLow(k)
			}
			for _, k := range tt.add {
				q.Add(k)
			}
			var got []string
			for q.Len() > 0 {
				k, ok := q.Get(context.Background())
				if !ok {
					t.Fatal("Get: queue shut down")
				}
				got = append(got, k)
				q.Done(k)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("served %v, want %v", got, tt.want)
			}
		})
	}
}

// A lane emptied and filled again is served after every lane already
// waiting has had a turn; one that keeps work keeps its place.
func TestALaneThatEmptiesRejoinsAtTheEnd(t *testing.T) {
	q := New(Options[string]{Lane: laneOfKey})
	defer q.ShutDown()
	get := func() string {
		k, ok := q.Get(context.Background())
		if !ok {
			t.Fatal("Get: queue shut down")
		}
		q.Done(k)
		return k
	}
	for _, k := range []string{"a1", "a2", "b1", "c1", "c2"} {
		q.Add(k)
	}
	var got []string
	got = append(got, get(), get()) // a1, b1: lane b is empty now
	q.Add("b2")
	for q.Len() > 0 {
		got = append(got, get())
	}
	if want := []string{"a1", "b1", "c1", "a2", "b2", "c2"}; !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v", got, want)
	}
}

// A key waits once whatever its lane: a key re-added while waiting keeps
// its place, and one re-added while held waits again after Done.
func TestLanesKeepTheQueueGuarantees(t *testing.T) {
	q := New(Options[string]{Lane: laneOfKey})
	defer q.ShutDown()
	q.Add("a1")
	q.Add("b1")
	q.Add("a1")
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	k, _ := q.Get(context.Background())
	q.Add(k)
	if n := q.Len(); n != 1 {
		t.Fatalf("Len with the held key re-added = %d, want 1", n)
	}
	q.Done(k)
	var got []string
	for q.Len() > 0 {
		k, _ := q.Get(context.Background())
		got = append(got, k)
		q.Done(k)
	}
	if want := []string{"b1", "a1"}; !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v", got, want)
	}
}

// Emptied lanes are forgotten, so lane names may change without bound.
func TestEmptiedLanesAreForgotten(t *testing.T) {
	var l lanes[int]
	l.fair = true
	for i := range 1000 {
		l.push(fmt.Sprint(i), i)
		if v := l.pop(); v != i {
			t.Fatalf("pop = %d, want %d", v, i)
		}
	}
	if len(l.byName) != 0 || len(l.turn) != 0 || l.len() != 0 {
		t.Fatalf("after emptying: %d lanes by name, %d in turn, len %d", len(l.byName), len(l.turn), l.len())
	}
}

func BenchmarkLanes(b *testing.B) {
	for _, lanes := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprintf("lanes=%d", lanes), func(b *testing.B) {
			var opts Options[string]
			if lanes > 0 {
				opts.Lane = func(k string) string { return k[:strings.IndexByte(k, '/')] }
			}
			q := New(opts)
			defer q.ShutDown()
			keys := make([]string, 1024)
			for i := range keys {
				keys[i] = fmt.Sprintf("c%d/obj-%d", i%max(lanes, 1), i)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				q.Add(keys[i%len(keys)])
				k, _ := q.Get(ctx)
				q.Done(k)
			}
		})
	}
}

// noDelay is a RateLimiter that counts failures and never delays.
type noDelay struct{ n map[string]int }

func (l *noDelay) When(k string) time.Duration { l.n[k]++; return 0 }
func (l *noDelay) Forget(k string)             { delete(l.n, k) }
func (l *noDelay) NumRequeues(k string) int    { return l.n[k] }

func TestDropLaneRemovesOnlyThatLanesWaitingKeys(t *testing.T) {
	lim := &noDelay{n: map[string]int{}}
	q := New(Options[string]{Lane: laneOfKey, RateLimiter: lim})
	defer q.ShutDown()
	ctx := context.Background()
	q.Add("a1")
	held, _ := q.Get(ctx) // a1, held by a worker
	for _, k := range []string{"b1", "a3", "c1"} {
		q.Add(k)
	}
	q.AddRateLimited("a4") // failed once, waiting again
	q.AddRateLimited("b2")
	q.AddLow("a5")
	q.AddLow("c2")
	q.Add(held) // queued again at Done
	if n := q.DropLane("a"); n != 3 {
		t.Fatalf("DropLane = %d, want 3 (a3, a4, a5)", n)
	}
	if n := q.DropLane("a"); n != 0 {
		t.Fatalf("second DropLane = %d, want 0", n)
	}
	if q.NumRequeues("a4") != 0 || q.NumRequeues("b2") != 1 {
		t.Fatalf("retry counts a4 %d, b2 %d; want a4's forgotten, b2's kept", q.NumRequeues("a4"), q.NumRequeues("b2"))
	}
	q.Done(held)
	var got []string
	for q.Len() > 0 {
		k, _ := q.Get(ctx)
		got = append(got, k)
		q.Done(k)
	}
	if want := []string{"b1", "c1", "a1", "b2", "c2"}; !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v", got, want)
	}
	if n := New(Options[string]{}).DropLane(""); n != 0 {
		t.Fatalf("DropLane without lanes = %d, want 0", n)
	}
}
