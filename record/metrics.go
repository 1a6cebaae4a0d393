package record

// DropReason says why an occurrence will not reach the API server. Its
// values are short and stable, fit for a metric label.
type DropReason string

const (
	// DropBufferFull: the buffer of Events waiting to be created was full.
	DropBufferFull DropReason = "buffer_full"
	// DropSpam: the regarding object had used up its spam allowance.
	DropSpam DropReason = "spam"
	// DropInvalid: the Eventf arguments cannot make a valid Event.
	DropInvalid DropReason = "invalid"
	// DropShutdown: Eventf was called after Shutdown.
	DropShutdown DropReason = "shutdown"
	// DropWriteFailed: the server refused the write, or it kept failing
	// after MaxAttempts (one drop per abandoned write).
	DropWriteFailed DropReason = "write_failed"
)

// Metrics receives the recorder's counts, for export to a monitoring
// system. Methods are called with the recorder's lock held: they must be
// fast, must not block and must not call the Recorder.
type Metrics interface {
	// Dropped counts one occurrence (or, for DropWriteFailed, one write)
	// that will not reach the server.
	Dropped(reason DropReason)
	// Wrote counts one write to the sink, with its outcome.
	Wrote(err error)
}

// Stats are the recorder's counters since New. Occurrences are Eventf calls.
type Stats struct {
	// Created is the number of occurrences that started a new Event.
	Created uint64
	// Aggregated is the number of occurrences folded into the series of an
	// Event already started.
	Aggregated uint64
	// Writes is the number of successful writes to the sink (creations and
	// series updates).
	Writes uint64
	// Dropped counts occurrences not recorded, by reason (DropWriteFailed
	// counts abandoned writes).
	DroppedBufferFull, DroppedSpam, DroppedInvalid, DroppedShutdown, DroppedWriteFailed uint64
}
