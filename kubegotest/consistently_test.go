package kubegotest_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/kubegotest"
)

// recordingTB records a failure instead of ending the test.
type recordingTB struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = format
	panic(errStop)
}

var errStop = errors.New("stop")

func TestConsistently(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failAt   int // the call that returns an error; 0 never
		wantFail bool
		calls    int
	}{
		{"a condition that holds throughout passes, checked every interval", 0, false, 11},
		{"a condition that breaks once fails", 4, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				r := &recordingTB{TB: t}
				start := time.Now()
				func() {
					defer func() {
						if p := recover(); p != nil && p != errStop {
							panic(p)
						}
					}()
					kubegotest.Consistently(t.Context(), r, time.Hour, 6*time.Minute, func(context.Context) error {
						calls++
						if calls == tc.failAt {
							return errors.New("broke")
						}
						return nil
					})
				}()
				if r.failed != tc.wantFail || calls != tc.calls {
					t.Fatalf("failed %v after %d calls, want %v after %d", r.failed, calls, tc.wantFail, tc.calls)
				}
				if !tc.wantFail && time.Since(start) != time.Hour {
					t.Fatalf("returned after %s of fake time, want the hour", time.Since(start))
				}
			})
		})
	}
}
