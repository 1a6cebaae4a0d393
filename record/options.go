package record

import (
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/builtin"
	"github.com/kubego/kubego/internal/defaultlog"
)

// Defaults of Options.
const (
	DefaultReportingController = "kubego"
	DefaultBufferSize          = 10000
	DefaultWriters             = 4
	DefaultCacheSize           = 4096
	DefaultSeriesWindow        = 6 * time.Minute
	DefaultSeriesInterval      = 10 * time.Second
	DefaultSpamBurst           = 25
	DefaultSpamRefill          = 5 * time.Minute
	DefaultMaxAttempts         = 5
)

// Options configure a Recorder. The zero value is usable.
type Options struct {
	// ReportingController names the controller in every Event's
	// reportingController: a qualified name such as "example.com/labeler".
	// Empty means DefaultReportingController.
	ReportingController string
	// ReportingInstance names this replica in reportingInstance (at most 128
	// characters). Empty means ReportingController + "-" + the hostname.
	ReportingInstance string
	// Kinds finds the kind of regarding and related objects that carry no
	// TypeMeta (typed objects usually do not): a *client.Client knows the
	// custom resource types of its registry too, and
	// Manager.EventRecorder gives the Manager's. Nil means the built-in
	// kinds of k8s.io/api (those of scheme.Default(), recognised by their
	// Go types).
	Kinds client.KindResolver

	// BufferSize bounds the new Events waiting to be created; beyond it
	// Eventf drops the new occurrence (DropBufferFull) rather than block
	// its caller or evict one already accepted. The buffer is what absorbs
	// a burst: a controller that records an Event per object when it
	// starts emits one per object at once, faster than the server takes
	// them, so size it to the objects of such a burst. Each waiting Event
	// holds only its series (about a kilobyte). Zero means
	// DefaultBufferSize.
	BufferSize int
	// Writers is how many writes to the sink may be in flight at once, so
	// that a burst drains in a fraction of the round trips. Zero means
	// DefaultWriters; 1 writes one at a time, in the order the Events were
	// started.
	Writers int
	// CacheSize bounds the series tracked for aggregation, least recently
	// seen evicted first, and the objects tracked by the spam limit. Zero
	// means DefaultCacheSize.
	CacheSize int
	// SeriesWindow is how long after an occurrence an identical one is
	// still folded into the same Event; later ones start a new Event. Zero
	// means DefaultSeriesWindow.
	SeriesWindow time.Duration
	// SeriesInterval is the shortest time between two writes of one
	// Event's series: repeats in between only update the count kept in
	// memory. Shutdown writes pending counts at once. Zero means
	// DefaultSeriesInterval.
	SeriesInterval time.Duration

	// SpamBurst and SpamRefill set the spam limit: each regarding object
	// has a token bucket of SpamBurst tokens, refilled by one every
	// SpamRefill; starting a new Event about the object takes a token.
	// Zero means DefaultSpamBurst (25) and DefaultSpamRefill (5 minutes).
	SpamBurst  int
	SpamRefill time.Duration

	// MaxAttempts bounds the attempts of one write that fails with a
	// transient error (network, timeout, 429, 5xx). Zero means
	// DefaultMaxAttempts.
	MaxAttempts int

	// Clock is the time source; nil means the system clock.
	Clock clock.Clock
	// Logger receives invalid calls and failed writes (errors and
	// warnings). Nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives drops and writes; nil means none.
	Metrics Metrics
}

func (o Options) resolved() (Options, error) {
	if o.ReportingController == "" {
		o.ReportingController = DefaultReportingController
	}
	if o.ReportingInstance == "" {
		host, _ := os.Hostname()
		o.ReportingInstance = o.ReportingController + "-" + host
		if len(o.ReportingInstance) > 128 {
			o.ReportingInstance = o.ReportingInstance[:128]
		}
	}
	if o.Kinds == nil {
		o.Kinds = builtinKinds{}
	}
	o.Clock = clock.Or(o.Clock)
	o.Logger = defaultlog.Or(o.Logger)
	def := func(v *int, d int, name string) error {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			return &OptionsError{name, "must not be negative"}
		}
		return nil
	}
	defDur := func(v *time.Duration, d time.Duration, name string) error {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			return &OptionsError{name, "must not be negative"}
		}
		return nil
	}
	for _, err := range []error{
		def(&o.BufferSize, DefaultBufferSize, "BufferSize"),
		def(&o.Writers, DefaultWriters, "Writers"),
		def(&o.CacheSize, DefaultCacheSize, "CacheSize"),
		def(&o.SpamBurst, DefaultSpamBurst, "SpamBurst"),
		def(&o.MaxAttempts, DefaultMaxAttempts, "MaxAttempts"),
		defDur(&o.SeriesWindow, DefaultSeriesWindow, "SeriesWindow"),
		defDur(&o.SeriesInterval, DefaultSeriesInterval, "SeriesInterval"),
		defDur(&o.SpamRefill, DefaultSpamRefill, "SpamRefill"),
	} {
		if err != nil {
			return o, err
		}
	}
	if errs := content.IsLabelKey(o.ReportingController); len(errs) > 0 {
		return o, &OptionsError{"ReportingController", strings.Join(errs, "; ")}
	}
	if len(o.ReportingInstance) > 128 {
		return o, &OptionsError{"ReportingInstance", "must have at most 128 characters"}
	}
	return o, nil
}

// builtinKinds is the KindResolver of the built-in kinds of k8s.io/api,
// recognised by their Go types without linking package scheme: the first
// kind of the object's Go type.
type builtinKinds struct{}

func (builtinKinds) KindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	kinds := builtin.KindsOf(reflect.TypeOf(obj))
	if len(kinds) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("no built-in kind is registered for %T", obj)
	}
	return kinds[0], nil
}
