package fake

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/celeval"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/podlogs"
	"github.com/kubego/kubego/rest"
)

// Options configures a Server. The zero value serves every built-in kind
// in the versions a default kube-apiserver serves, with default settings.
type Options struct {
	// HistoryWindow is how many events (across all resources) the server
	// keeps for watches and for consistent lists at an older
	// resourceVersion. A watch, list or continue token from a
	// resourceVersion older than the window gets 410. Zero means 10000.
	HistoryWindow int

	// BookmarkInterval is how often a watch that allows bookmarks gets a
	// BOOKMARK event carrying the current resourceVersion. Zero means one
	// minute (like kube-apiserver); negative disables periodic bookmarks
	// (the initial-events-end bookmark of sendInitialEvents is sent
	// whenever the watch allows bookmarks).
	BookmarkInterval time.Duration

	// AllVersions serves every version of every kind of k8s.io/api, also
	// the alpha and beta versions a default kube-apiserver does not serve
	// (as a server whose --runtime-config enables them all). By default
	// only the GA versions are served, as by kube-apiserver without
	// --runtime-config: a request for extensions/v1beta1 is 404.
	AllVersions bool

	// Resources are custom resources served in addition to the built-in
	// kinds. More can be added with Server.Register.
	Resources []Resource

	// Clock tells the time for creationTimestamp, deletionTimestamp and
	// managedFields. Nil means the wall clock.
	Clock clock.Clock

	// Logger receives one debug line per request and a warning for each
	// object or resource of these Options it could not add. Nil means
	// warnings go to slog.Default() and debug lines nowhere.
	Logger *slog.Logger

	// Version is what /version answers. The zero value reports v1.37.2.
	Version version.Info

	// PlainHTTP makes Config serve plain http instead of TLS.
	PlainHTTP bool

	// RefuseUndefaulted makes a write of a built-in kind that
	// kube-apiserver defaults but the fake does not (see the package
	// documentation) fail with 501 Not Implemented naming the kind and
	// this option (Add returns an error wrapping ErrNotDefaulted),
	// instead of storing it undefaulted. A test run with it set cannot
	// pass because of a default the fake leaves out.
	RefuseUndefaulted bool

	// Webhooks maps the address of an admission webhook to a handler the
	// server calls in process, with no listener and no TLS: the
	// clientConfig.url of a webhook configuration, or for a service
	// reference ServiceWebhookURL of it. The handlers of package
	// webhook/admission are such handlers. A webhook whose address is not
	// mapped is called over HTTPS at its url, trusting its caBundle; a
	// service reference not mapped cannot be reached (the fake has no
	// cluster network) and fails as by the webhook's failurePolicy.
	// Calls in process keep a test that runs the server inside a
	// testing/synctest bubble in fake time; the map is read, never
	// changed, by the server.
	Webhooks map[string]http.Handler
}

// Server is an in-memory Kubernetes API server. It is an http.Handler
// serving the REST API of every built-in kind and of registered custom
// resources, and it can start its own loopback listener (Config). All
// methods are safe for concurrent use.
type Server struct {
	opts   Options
	clock  clock.Clock
	logger *slog.Logger

	mu  sync.Mutex // guards reg, st, fms, tcs, matchExprs
	reg *registry
	st  *store
	fms map[fmKey]*managedfields.FieldManager
	// tcs holds the type converter of each resource that has had a
	// field manager (see typeConverter).
	tcs map[schema.GroupVersionResource]managedfields.TypeConverter
	// matchExprs are the compiled matchConditions of webhooks, by
	// expression (admitcel.go); guarded by mu.
	matchExprs map[string]*celeval.Expr

	faults faults
	// logs are the containers' log content (SetPodLog).
	logs podlogs.Store
	// strategies is what the registry adds to writes of special kinds
	// (strategy.go); never changed after NewServer.
	strategies map[schema.GroupVersionResource]*strategy

	httpMu sync.Mutex
	http   *httptest.Server
	closed chan struct{}
	once   sync.Once
}

type fmKey struct {
	gvr schema.GroupVersionResource
	sub string
}

// ErrInvalidObject is returned (wrapped) by NewServer's Add and by Register
// for objects or resources the server cannot take.
var ErrInvalidObject = errors.New("fake: invalid object")

var errNotBuiltin = errors.New("fake: not a built-in kind")

// NewServer returns a server holding objects, which may be typed built-in
// objects or *unstructured.Unstructured of registered resources. Objects are
// created in order, as by POST without admission: namespaces they live in
// are not required to exist. An object the server cannot store panics is
// never raised; use Add to get the error, NewServer drops such an object and
// logs it through Options.Logger.
//
// The server does not listen until Config is called; it can also be mounted
// on any http.Server. Call Close to end watches and stop the listener.
func NewServer(opts Options, objects ...runtime.Object) *Server {
	if opts.HistoryWindow <= 0 {
		opts.HistoryWindow = 10000
	}
	if opts.BookmarkInterval == 0 {
		opts.BookmarkInterval = time.Minute
	}
	if opts.Version.GitVersion == "" {
		opts.Version = version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2", Platform: "linux/amd64", GoVersion: "go1.26"}
	}
	s := &Server{
		opts:       opts,
		clock:      clock.Or(opts.Clock),
		logger:     opts.Logger,
		reg:        newRegistry(opts.AllVersions),
		st:         newStore(opts.HistoryWindow),
		fms:        map[fmKey]*managedfields.FieldManager{},
		tcs:        map[schema.GroupVersionResource]managedfields.TypeConverter{},
		closed:     make(chan struct{}),
		strategies: kindStrategies(),
	}
	s.logger = defaultlog.Or(s.logger)
	// kube-apiserver creates these namespaces itself at start.
	s.mu.Lock()
	for _, ns := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		_ = s.ensureNamespace(ns)
	}
	s.seedAPIServices()
	s.mu.Unlock()
	for _, r := range opts.Resources {
		if err := s.Register(r); err != nil {
			s.logger.Warn("fake: resource not registered", "kind", r.Kind.String(), "err", err)
		}
	}
	for _, o := range objects {
		if err := s.Add(o); err != nil {
			s.logger.Warn("fake: object not added", "err", err)
		}
	}
	return s
}

// Register serves a custom resource. Registering a kind again replaces its
// description but keeps its objects.
func (s *Server) Register(r Resource) error {
	if r.Kind.Kind == "" || r.Kind.Version == "" || r.Resource == "" {
		return errors.Join(ErrInvalidObject, errors.New("resource needs Kind (with version) and Resource"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reg.add(&resource{
		gvr:        r.Kind.GroupVersion().WithResource(r.Resource),
		gvk:        r.Kind,
		namespaced: r.Namespaced,
		status:     r.Status,
		scale:      r.Scale,
		generation: true,
		shortNames: r.ShortNames,
		categories: r.Categories,
	})
	return nil
}

// Config starts the server's loopback listener on first call (TLS unless
// Options.PlainHTTP) and returns a fresh rest.Config that trusts it. It
// returns nil after Close.
func (s *Server) Config() *rest.Config {
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	select {
	case <-s.closed:
		return nil
	default:
	}
	if s.http == nil {
		hs := httptest.NewUnstartedServer(s)
		if s.opts.PlainHTTP {
			hs.Start()
		} else {
			hs.EnableHTTP2 = true
			hs.StartTLS()
		}
		s.http = hs
	}
	cfg := &rest.Config{Host: s.http.URL}
	if !s.opts.PlainHTTP {
		cfg.TLS.CAData = pemCert(s.http.Certificate().Raw)
	}
	return cfg
}

// URL returns the listener's base URL, starting it like Config does.
func (s *Server) URL() string {
	if s.Config() == nil {
		return ""
	}
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	return s.http.URL
}

// Close ends every open watch and stops the listener, if started. It is
// safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.httpMu.Lock()
	hs := s.http
	s.httpMu.Unlock()
	if hs != nil {
		hs.CloseClientConnections()
		hs.Close()
	}
}

// ResourceVersion returns the server's current resourceVersion: that of
// the latest write.
func (s *Server) ResourceVersion() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.rv
}
