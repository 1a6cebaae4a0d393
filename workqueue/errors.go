package workqueue

import "fmt"

// DrainError is returned by ShutDownAndWait and ShutDownWithDrain when
// their context ends before the queue had nothing left. It wraps the
// context's error, so errors.Is(err, context.DeadlineExceeded) works.
type DrainError struct {
	// InFlight is the number of keys still held by workers when the wait
	// ended.
	InFlight int
	// Waiting is the number of keys that were still waiting for a worker
	// (ShutDownWithDrain only; ShutDownAndWait drops them).
	Waiting int
	// Err is the context's cause.
	Err error
}

func (e *DrainError) Error() string {
	if e.Waiting > 0 {
		return fmt.Sprintf("workqueue: drain stopped with %d keys in flight and %d waiting: %v", e.InFlight, e.Waiting, e.Err)
	}
	return fmt.Sprintf("workqueue: drain stopped with %d keys still in flight: %v", e.InFlight, e.Err)
}

func (e *DrainError) Unwrap() error { return e.Err }
