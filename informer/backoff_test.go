package informer

import (
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/backoff"
)

func TestBackoff(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name  string
		cfg   backoff.Backoff
		rand  float64 // the jitter's draw
		reset time.Duration
		at    []time.Duration // failure times after t0
		want  []time.Duration
	}{
		{
			name: "doubles from 800ms and caps at 30s",
			cfg:  backoff.Backoff{},
			at:   []time.Duration{0, 1, 2, 3, 4, 5, 6, 7},
			want: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second},
		},
		{
			name: "resets after a stable period",
			cfg:  backoff.Backoff{},
			at:   []time.Duration{0, time.Second, 3 * time.Minute, 3*time.Minute + time.Second},
			want: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond},
		},
		{
			name: "jitter adds up to Jitter times the delay",
			cfg:  backoff.Backoff{Jitter: 0.5},
			rand: 0.5,
			at:   []time.Duration{0, 1},
			want: []time.Duration{1000 * time.Millisecond, 2000 * time.Millisecond},
		},
		{
			name:  "configurable bounds",
			cfg:   backoff.Backoff{Initial: time.Second, Max: 3 * time.Second, Factor: 3, Jitter: -1},
			reset: time.Minute,
			at:    []time.Duration{0, 1, 2, 2 * time.Minute},
			want:  []time.Duration{time.Second, 3 * time.Second, 3 * time.Second, time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := backoffState{cfg: reflectorBackoff(tt.cfg, tt.reset), rand: func() float64 { return tt.rand }}
			for i, at := range tt.at {
				if got := s.next(t0.Add(at)); got != tt.want[i] {
					t.Fatalf("failure %d: delay %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestBackoffStartsOverAfterAWatchThatOutlivedItsDelay(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := backoffState{cfg: reflectorBackoff(backoff.Backoff{Jitter: -1}, 0)}
	steps := []struct {
		name  string
		lived time.Duration // how long the watch before this failure lived
		want  time.Duration
	}{
		{"first failure", 0, 800 * time.Millisecond},
		{"a watch shorter than the delay escalates", 500 * time.Millisecond, 1600 * time.Millisecond},
		{"and again", time.Second, 3200 * time.Millisecond},
		{"a watch that outlived the delay starts over", 5 * time.Second, 800 * time.Millisecond},
		{"then escalates again", 100 * time.Millisecond, 1600 * time.Millisecond},
	}
	at := t0
	for _, st := range steps {
		at = at.Add(time.Second)
		s.watchLived(st.lived)
		if got := s.next(at); got != st.want {
			t.Fatalf("%s: delay %v, want %v", st.name, got, st.want)
		}
	}
}

func TestReflectorBackoffOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := apierrors.NewInternalError(errString("etcd unavailable"))
		w := watch.NewFake()
		lw := (&fakeLW{}).onList(listOf("10"))
		for range 8 {
			lw.onWatch(watchErr2(boom))
		}
		lw.onWatch(watchCh(w), watchErr2(boom))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		stop := start(t, inf)
		defer stop()
		synctest.Wait()
		time.Sleep(5 * time.Minute) // fake time: the watch stays up, stable
		st := apierrors.NewInternalError(errString("stream broke")).Status()
		w.Error(&st)
		synctest.Wait()
		time.Sleep(time.Minute)
		calls := lw.callList()
		var gaps []time.Duration
		for i := 2; i < len(calls); i++ {
			gaps = append(gaps, calls[i].at.Sub(calls[i-1].at))
		}
		want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
			12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second,
			// The good watch opened at 110.4s and broke at 5m: it was stable
			// for more than ResetAfter, so the delay starts again at 800ms,
			// and the next failure doubles it.
			5*time.Minute - 110400*time.Millisecond + 800*time.Millisecond,
			1600 * time.Millisecond,
		}
		if len(gaps) != len(want) {
			t.Fatalf("gaps %v, want %v", gaps, want)
		}
		for i := range want {
			if gaps[i] != want[i] {
				t.Fatalf("gaps %v, want %v", gaps, want)
			}
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }
