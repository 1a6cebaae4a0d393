package client_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/client"
)

var errConflict = apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("stale"))

func TestRetryOnConflict(t *testing.T) {
	other := errors.New("boom")
	tests := []struct {
		name      string
		results   []error
		backoff   backoff.Backoff
		wantCalls int
		wantErr   func(error) bool
		wantWait  time.Duration
	}{
		{"success at once", []error{nil}, backoff.Backoff{}, 1, func(err error) bool { return err == nil }, 0},
		{"conflicts then success", []error{errConflict, errConflict, nil}, backoff.Backoff{Steps: 5, Initial: time.Second, Factor: 2}, 3, func(err error) bool { return err == nil }, 3 * time.Second},
		{"other errors are returned at once", []error{other}, backoff.Backoff{}, 1, func(err error) bool { return errors.Is(err, other) }, 0},
		{"gives up after Steps with the conflict", []error{errConflict, errConflict, errConflict}, backoff.Backoff{Steps: 3, Initial: time.Second, Max: 1500 * time.Millisecond, Factor: 10}, 3, apierrors.IsConflict, 2500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				start := time.Now()
				err := client.RetryOnConflict(context.Background(), tt.backoff, func(context.Context) error {
					calls++
					return tt.results[calls-1]
				})
				if calls != tt.wantCalls || !tt.wantErr(err) {
					t.Fatalf("calls %d err %v", calls, err)
				}
				if waited := time.Since(start); waited != tt.wantWait {
					t.Fatalf("waited %v, want %v", waited, tt.wantWait)
				}
			})
		})
	}
}

func TestRetryOnConflictStopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
		defer cancel()
		calls := 0
		err := client.RetryOnConflict(ctx, backoff.Backoff{Steps: 100, Initial: time.Second}, func(context.Context) error {
			calls++
			return errConflict
		})
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errConflict) {
			t.Fatalf("err %v", err)
		}
		if calls != 5 {
			t.Fatalf("calls %d, want 5 (one per second until the deadline)", calls)
		}
	})
}
