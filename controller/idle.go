package controller

// Idle reports whether the controller has no Request waiting for a worker
// and no reconcile in flight. Requests waiting for a delay (Result's
// RequeueAfter, a backoff) do not count, nor do events an informer has
// not yet handed to the controller's handlers. It is a snapshot: tests
// use it after synctest.Wait (kubegotest.Settle) or in a poll
// (kubegotest.WaitIdle).
func (c *Controller) Idle() bool { return c.queue.Idle() }
