package workqueue

import (
	"time"

	"github.com/kubego/kubego/clock/clocktest"
)

// newFakeClock returns a manual clock for the queue's timers; see
// clocktest.Manual.
func newFakeClock() *clocktest.Manual {
	return clocktest.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}
