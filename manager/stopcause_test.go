package manager

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kubego/kubego/leaderelection"
)

func TestStopCause(t *testing.T) {
	boom := errors.New("boom")
	lostCancelled := fmt.Errorf("manager: %w: %w", leaderelection.ErrLeaseLost, fmt.Errorf("renew: %w", context.Canceled))
	tests := []struct {
		name  string
		cause error
		want  error
	}{
		{name: "none", cause: nil, want: nil},
		{name: "plain cancellation is not an error", cause: context.Canceled, want: nil},
		{name: "a failed runnable is reported", cause: boom, want: boom},
		{name: "lost leadership is reported", cause: fmt.Errorf("manager: %w", leaderelection.ErrLeaseLost), want: leaderelection.ErrLeaseLost},
		{name: "lost leadership wrapping a cancelled renewal is reported", cause: lostCancelled, want: leaderelection.ErrLeaseLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stopCause(tt.cause)
			if (tt.want == nil) != (got == nil) || (tt.want != nil && !errors.Is(got, tt.want)) {
				t.Fatalf("stopCause(%v) = %v, want %v", tt.cause, got, tt.want)
			}
		})
	}
}
