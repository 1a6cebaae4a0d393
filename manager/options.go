package manager

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/rest"
)

// DefaultGracefulShutdownTimeout bounds how long Manager.Start waits for
// its runnables to return once it stops.
const DefaultGracefulShutdownTimeout = 45 * time.Second

// Options configure a Manager. Config is required; every other field has
// a useful zero value.
type Options struct {
	// Config is how to reach the API server. The Manager builds its one
	// shared client from a copy of it, adding its metrics round-tripper
	// to WrapTransport (after any wrapper already set).
	Config *rest.Config
	// Client configures the shared client: custom resource registry,
	// Mapper, and the field manager of every write that names none (empty
	// means the server names it after the program, from the User-Agent).
	Client client.Options
	// Events are the options of the recorders EventRecorder makes;
	// ReportingController is replaced by the name asked for, a nil Logger
	// by the Manager's, and nil Metrics by counters in Registry.
	Events record.Options
	// Informers configure the shared informer factory. A nil Logger is
	// replaced by the Manager's; OneInformerPerType is always set.
	Informers informer.FactoryOptions
	// Registry receives every metric of the Manager and is served on
	// /metrics. Nil means a new registry per Manager, holding also the Go
	// runtime and process collectors. The global default registry is never
	// used.
	Registry *prometheus.Registry
	// MetricsAddr is the address of the /metrics server ("127.0.0.1:0"
	// picks a free port). Empty means no metrics server (the registry and
	// MetricsHandler still work).
	MetricsAddr string
	// SecureMetrics, if set, serves MetricsAddr over HTTPS and admits only
	// callers the API server authenticates and authorizes (see
	// SecureMetrics). Nil serves plain HTTP to anyone who reaches the
	// address.
	SecureMetrics *SecureMetrics
	// Pprof adds the Go runtime profiles under /debug/pprof/ to the metrics
	// server (index, /debug/pprof/profile?seconds=N for CPU,
	// /debug/pprof/trace?seconds=N, and each named profile such as heap
	// and goroutine, with ?debug=N). With SecureMetrics they are behind the
	// same check (RBAC: get on nonResourceURLs "/debug/pprof/*"); without
	// it New refuses Pprof unless MetricsAddr is a loopback address.
	Pprof bool
	// HealthAddr is the address of the /healthz and /readyz server. Empty
	// means none. When it equals MetricsAddr, one server serves all three.
	HealthAddr string
	// LeaderElection, if not nil, makes the runnables that need leadership
	// (controllers, by default) run only while this replica leads the
	// Lease it names. Lock is required; an empty Identity means the host
	// name plus a random suffix; Metrics and Logger are filled in; the
	// Manager's own callbacks run before those given. Set ReleaseOnCancel
	// for a fast hand-over on shutdown. The client then refuses, with an
	// error wrapping leaderelection.ErrTermOver, every request of
	// leader-only work whose term is over by the clock
	// (leaderelection.GuardTransport), even before the term's context is
	// cancelled.
	LeaderElection *leaderelection.Config
	// GracefulShutdownTimeout bounds the wait for runnables to return once
	// the Manager stops. Zero means DefaultGracefulShutdownTimeout.
	GracefulShutdownTimeout time.Duration
	// TracerProvider, if set, traces every API request of the shared
	// client (its span sent to the server as a W3C traceparent header)
	// and every reconcile of the Manager's controllers (unless their
	// controller.Options name another) as OpenTelemetry spans. Nil means
	// no tracing.
	TracerProvider trace.TracerProvider
	// Permissions are API requests the program makes beyond what the
	// Manager knows of (see Manager.Permissions): the writes and uncached
	// reads of code that is neither a controller (which names its own in
	// controller.Options.Permissions) nor another Permitted runnable.
	Permissions []rbac.Permission
	// Logger receives the Manager's records and is the default logger of
	// its controllers, informers, client and leader election. Nil means
	// errors and warnings go to slog.Default() and info records nowhere.
	Logger *slog.Logger
}
