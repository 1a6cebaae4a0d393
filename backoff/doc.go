// Package backoff is kubego's one vocabulary for growing delays between
// failed attempts: a [Backoff] says where the delay starts (Initial), how
// fast it grows (Factor), where it stops growing (Max), how much random
// spread is added (Jitter) and, for callers that give up, how many
// attempts they make (Steps).
//
// A Backoff is plain data; each user applies its own defaults to zero
// fields and documents them (client.RetryOnConflict, the informer's
// reflector, workqueue.NewExponential). The methods compute delays and keep
// no state, so one Backoff may be shared by any number of goroutines.
package backoff
