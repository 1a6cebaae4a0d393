package kubegotest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/kubegotest"
)

// fatalTB records a Fatal instead of stopping the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatal(args ...any) { f.msg = fmt.Sprint(args...) }

func TestPoll(t *testing.T) {
	tests := []struct {
		name     string
		okAfter  int // attempts before cond holds; 0: never
		timeout  time.Duration
		wantErr  bool
		attempts int
	}{
		{"a condition that holds at once is called once", 1, time.Second, false, 1},
		{"a condition is retried until it holds", 5, time.Second, false, 5},
		{"a condition that never holds ends with the context", 0, time.Second, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tt.timeout)
				defer cancel()
				calls := 0
				err := kubegotest.Poll(ctx, func(context.Context) error {
					calls++
					if tt.okAfter > 0 && calls >= tt.okAfter {
						return nil
					}
					return fmt.Errorf("saw %d replicas, want 3", calls)
				})
				if !tt.wantErr {
					if err != nil || calls != tt.attempts {
						t.Fatalf("Poll = %v after %d calls, want nil after %d", err, calls, tt.attempts)
					}
					return
				}
				var nm *kubegotest.NotMetError
				if !errors.As(err, &nm) || !errors.Is(err, kubegotest.ErrNotMet) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Poll = %v, want a *NotMetError wrapping ErrNotMet and the deadline", err)
				}
				if nm.Attempts != calls || !strings.Contains(err.Error(), fmt.Sprintf("saw %d replicas", calls)) {
					t.Fatalf("error %q after %d calls: want the attempts and the last answer", err, calls)
				}
			})
		})
	}
}

func TestPollGivesAContextWithoutDeadlineTheDefaultTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := kubegotest.Poll(context.Background(), func(context.Context) error { return errors.New("never") })
		if !errors.Is(err, kubegotest.ErrNotMet) {
			t.Fatalf("Poll = %v", err)
		}
		if d := time.Since(start); d < kubegotest.DefaultTimeout || d > kubegotest.DefaultTimeout+time.Second {
			t.Fatalf("Poll gave up after %s, want about %s", d, kubegotest.DefaultTimeout)
		}
	})
}

func TestEventuallyFailsWithTheLastAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		tb := &fatalTB{TB: t}
		kubegotest.Eventually(ctx, tb, func(context.Context) error { return errors.New("deployment web: 1 of 3 replicas available") })
		if !strings.Contains(tb.msg, "1 of 3 replicas available") || !strings.Contains(tb.msg, "attempts") {
			t.Fatalf("failure message %q does not say what was last seen", tb.msg)
		}
		tb.msg = ""
		kubegotest.Eventually(ctx, tb, func(context.Context) error { return nil })
		if tb.msg != "" {
			t.Fatalf("Eventually failed on a condition that holds: %s", tb.msg)
		}
	})
}
