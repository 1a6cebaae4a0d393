package leaderelection

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
)

// Defaults of the Config durations, as in client-go and kube-controller-manager.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Config describes one candidate. Lock and Identity are required; every
// other field has a useful zero value.
type Config struct {
	// Lock names the coordination.k8s.io/v1 Lease the candidates compete
	// for. The Lease is created when missing. It is apimachinery's
	// types.NamespacedName, the ecosystem's type for a reference to one
	// object; LostError.Lease, Metrics.SetLeading and Store.Get take the
	// same value, and the package has no name type of its own.
	Lock types.NamespacedName
	// Identity names this candidate in the lease's holderIdentity. It must be
	// unique per running process (hostname plus a random suffix is usual): a
	// candidate that finds its own identity in the lease takes it over at
	// once, believing it is a restart of itself.
	Identity string

	// LeaseDuration is how long followers wait, measured on their own clock
	// from the moment they observed the last change of the lease record,
	// before they may take the lease over. Zero means DefaultLeaseDuration.
	// It is written to the lease rounded up to whole seconds.
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps acting after it sent the last
	// renewal that succeeded: when no renewal succeeds for that long, the
	// term ends and the context given to OnStartedLeading is cancelled. It
	// must be shorter than LeaseDuration; the difference is the margin for
	// clock-rate differences and for the leader's code to notice the
	// cancellation. Zero means DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts: renewals of a leader, and
	// reads of a follower (which also wakes at the exact expiry of the
	// lease). It must be shorter than RenewDeadline. Zero means
	// DefaultRetryPeriod.
	RetryPeriod time.Duration

	// Callbacks are told about leadership; each may be nil.
	Callbacks Callbacks

	// ReleaseOnCancel makes a leader whose Run context is cancelled write
	// the lease back with no holder, once OnStartedLeading has returned, so
	// another candidate takes over at once instead of after LeaseDuration.
	ReleaseOnCancel bool

	// Clock is the time source; nil means the system clock.
	Clock clock.Clock
	// Logger receives state changes (Info) and failed store calls (Warn,
	// Debug while following). Nil means warnings (leadership lost, a
	// failed renewal or release) go to slog.Default() and the rest nowhere.
	Logger *slog.Logger
	// Metrics receives the leader status; nil means none.
	Metrics Metrics
}

// Callbacks are told about the election. A nil field is skipped.
type Callbacks struct {
	// OnStartedLeading runs in its own goroutine when a term begins. Its
	// context is cancelled when the term ends: at the latest RenewDeadline
	// after the last successful renewal was sent, which is before any other
	// candidate may take the lease (see the package documentation for the
	// clock assumptions). The code it starts must stop acting as leader when
	// the context is done. Run does not return before it has returned.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading is called on the election goroutine once per term,
	// right after the term's context was cancelled (it does not wait for
	// OnStartedLeading to return). It is not called by a candidate that
	// never led.
	OnStoppedLeading func()
	// OnNewLeader is called on the election goroutine when the holder seen
	// in the lease changes to a non-empty identity, this candidate's
	// included. It must return quickly: the election waits for it.
	OnNewLeader func(identity string)
}

// resolved returns c with defaults applied, or the first problem found.
func (c Config) resolved() (Config, error) {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	c.Clock = clock.Or(c.Clock)
	c.Logger = defaultlog.Or(c.Logger)
	switch {
	case c.Lock.Name == "":
		return c, &ConfigError{"Lock.Name", "required"}
	case c.Lock.Namespace == "":
		return c, &ConfigError{"Lock.Namespace", "required"}
	case c.Identity == "":
		return c, &ConfigError{"Identity", "required"}
	case c.LeaseDuration < 0 || c.RenewDeadline < 0 || c.RetryPeriod < 0:
		return c, &ConfigError{"LeaseDuration, RenewDeadline, RetryPeriod", "must not be negative"}
	case c.RenewDeadline >= c.LeaseDuration:
		return c, &ConfigError{"RenewDeadline", "must be shorter than LeaseDuration (" + c.RenewDeadline.String() + " >= " + c.LeaseDuration.String() + ")"}
	case c.RetryPeriod >= c.RenewDeadline:
		return c, &ConfigError{"RetryPeriod", "must be shorter than RenewDeadline (" + c.RetryPeriod.String() + " >= " + c.RenewDeadline.String() + ")"}
	case c.LeaseDuration > time.Duration(1<<31-1)*time.Second:
		return c, &ConfigError{"LeaseDuration", "does not fit the lease's int32 seconds"}
	}
	if errs := content.IsDNS1123Subdomain(c.Lock.Name); len(errs) > 0 {
		return c, &ConfigError{"Lock.Name", strings.Join(errs, "; ")}
	}
	if errs := content.IsDNS1123Label(c.Lock.Namespace); len(errs) > 0 {
		return c, &ConfigError{"Lock.Namespace", strings.Join(errs, "; ")}
	}
	return c, nil
}
