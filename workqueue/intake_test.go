package workqueue

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
)

func TestIntake(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T, q *Queue[int])
	}{
		{
			name: "adds left in the intake are visible to Len and come out in order",
			check: func(t *testing.T, q *Queue[int]) {
				for k := range 10 {
					q.Add(k)
				}
				if q.Len() != 10 {
					t.Fatalf("Len = %d, want 10", q.Len())
				}
				for want := range 10 {
					if k, _ := q.Get(context.Background()); k != want {
						t.Fatalf("Get = %d, want %d", k, want)
					}
				}
			},
		},
		{
			name: "the add that fills the intake takes it in",
			check: func(t *testing.T, q *Queue[int]) {
				for k := range intakeMax {
					q.Add(k)
				}
				q.mu.Lock()
				ready, pending := q.ready.len(), q.in.n.Load()
				q.mu.Unlock()
				if ready != intakeMax || pending != 0 {
					t.Fatalf("ready %d, still in intake %d; want %d and 0", ready, pending, intakeMax)
				}
			},
		},
		{
			name: "adds are deduplicated against the intake's own earlier adds",
			check: func(t *testing.T, q *Queue[int]) {
				for range 3 {
					for k := range 5 {
						q.Add(k)
					}
				}
				if q.Len() != 5 {
					t.Fatalf("Len = %d, want 5", q.Len())
				}
			},
		},
		{
			name: "a parked Get closes the intake and the next add reaches it directly",
			check: func(t *testing.T, q *Queue[int]) {
				got := make(chan int, 2)
				for range 2 {
					go func() {
						k, _ := q.Get(context.Background())
						got <- k
					}()
				}
				synctest.Wait()
				q.in.mu.Lock()
				closed := q.in.closed
				q.in.mu.Unlock()
				if !closed {
					t.Fatal("intake open while Gets are parked")
				}
				q.Add(1)
				q.Add(2)
				synctest.Wait()
				keys := []int{<-got, <-got}
				slices.Sort(keys)
				if !slices.Equal(keys, []int{1, 2}) {
					t.Fatalf("parked Gets received %v", keys)
				}
				q.in.mu.Lock()
				closed = q.in.closed
				q.in.mu.Unlock()
				if closed {
					t.Fatal("intake still closed with no Get parked")
				}
				q.Add(3) // through the intake again
				if q.Len() != 1 {
					t.Fatalf("Len = %d, want 1", q.Len())
				}
			},
		},
		{
			name: "a cancelled parked Get reopens the intake",
			check: func(t *testing.T, q *Queue[int]) {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					q.Get(ctx)
					close(done)
				}()
				synctest.Wait()
				cancel()
				<-done
				q.in.mu.Lock()
				closed := q.in.closed
				q.in.mu.Unlock()
				if closed {
					t.Fatal("intake still closed after the only parked Get left")
				}
			},
		},
		{
			name: "shutdown drops the intake",
			check: func(t *testing.T, q *Queue[int]) {
				q.Add(1)
				q.ShutDown()
				q.Add(2)
				if q.Len() != 0 || q.in.n.Load() != 0 {
					t.Fatalf("Len %d, intake %d after ShutDown", q.Len(), q.in.n.Load())
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[int]{})
				tt.check(t, q)
				q.ShutDown()
			})
		})
	}
}
