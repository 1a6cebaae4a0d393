package workqueue

import "fmt"

// DrainError is returned by ShutDownWithDrain when its context ends before
// every key handed to a worker was marked Done. It wraps the context's error,
// so errors.Is(err, context.DeadlineExceeded) works.
type DrainError struct {
	// InFlight is the number of keys still held by workers when the wait
	// ended.
	InFlight int
	// Err is the context's cause.
	Err error
}

func (e *DrainError) Error() string {
	return fmt.Sprintf("workqueue: drain stopped with %d keys still in flight: %v", e.InFlight, e.Err)
}

func (e *DrainError) Unwrap() error { return e.Err }
