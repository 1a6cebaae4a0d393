package rest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/builtin"
	"github.com/kubego/kubego/internal/codec/protodec"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/secret"
)

const (
	defaultMaxRetries    = 10
	defaultMaxRetryAfter = 30 * time.Second
	defaultMaxFrameBytes = 16 << 20
)

// Client sends requests to one kube-apiserver. Build it with NewClient; it is
// safe for concurrent use, and cheap to keep for the life of a program.
// Clients built from Configs with equal TLS, proxy and HTTP/2 settings share
// one connection pool.
type Client struct {
	base *url.URL
	http *http.Client
	// transport is the connection pool under http, shared with every
	// client of equal transport settings.
	transport *http.Transport
	scheme    *runtime.Scheme
	// builtins is set when the Config named no scheme: the built-in kinds
	// of k8s.io/api are then recognised by their Go type (package
	// internal/builtin) rather than registered in scheme, so that a
	// program links only the groups it uses.
	builtins    bool
	json        *json.Serializer
	proto       *protobuf.Serializer
	params      runtime.ParameterCodec
	contentType ContentType
	timeout     time.Duration
	maxRetries  int
	maxAfter    time.Duration
	maxFrame    int
	retryWait   time.Duration
	maxBody     int64
	gzipRatio   int64 // <= 0: unchecked
	noGzip      bool
	// headerTimeout bounds the wait for response headers; <= 0: none.
	headerTimeout time.Duration
	// bodyProgress is the window in which a body read whole must make
	// progress; <= 0: unbounded.
	bodyProgress time.Duration
	// static are the Config's own credentials, redacted from what the
	// server sends back (see secrets).
	static   []secret.Value
	agent    string
	limiter  RateLimiter
	warnings WarningHandler
	logger   *slog.Logger
	clock    clock.Clock

	protoGVs sync.Map // schema.GroupVersion → bool
	kinds    sync.Map // reflect.Type → []protoKind
	plans    protodec.Decoder
}

// NewClient validates cfg and builds a Client. Errors in cfg come back as
// *ConfigError. cfg is not retained: later changes to it do not affect the
// Client (func and interface fields are shared, not copied).
func NewClient(cfg *Config) (*Client, error) {
	base, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	baseRT, err := transportFor(cfg)
	if err != nil {
		return nil, err
	}
	clk := clock.Or(cfg.Clock)
	logger := defaultlog.Or(cfg.Logger)

	var rt http.RoundTripper = authRecorder{next: baseRT}
	host := base.Host
	switch {
	case cfg.Auth != nil:
		rt = cfg.Auth.WrapTransport(rt)
	case cfg.BearerTokenFile != "":
		src, err := newTokenFile(cfg.BearerTokenFile, clk, logger)
		if err != nil {
			return nil, &ConfigError{Field: "BearerTokenFile", Reason: "cannot read a token", Err: err}
		}
		rt = &bearerRT{host: host, src: src, next: rt}
	case cfg.BearerToken != "":
		rt = &bearerRT{host: host, src: staticToken{secret.New(cfg.BearerToken)}, next: rt}
	case cfg.Username != "":
		rt = newBasicRT(host, cfg.Username, cfg.Password, rt)
	}
	if cfg.Impersonate.UserName != "" {
		imp := cfg.Impersonate
		imp.Groups = append([]string(nil), imp.Groups...)
		extra := make(map[string][]string, len(imp.Extra))
		for k, v := range imp.Extra {
			extra[k] = append([]string(nil), v...)
		}
		imp.Extra = extra
		rt = &impersonateRT{imp: imp, next: rt}
	}
	agent := cfg.UserAgent
	if agent == "" {
		agent = DefaultUserAgent()
	}
	rt = &userAgentRT{agent: agent, next: rt}
	if cfg.WrapTransport != nil {
		rt = cfg.WrapTransport(rt)
	}

	s := cfg.Scheme
	if s == nil {
		s = metaScheme()
	}
	maxRetries := cfg.MaxRetries
	switch {
	case maxRetries == 0:
		maxRetries = defaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	c := &Client{
		base:          base,
		transport:     baseRT,
		http:          &http.Client{Transport: rt, CheckRedirect: checkRedirect},
		scheme:        s,
		builtins:      cfg.Scheme == nil,
		json:          json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{}),
		proto:         protobuf.NewSerializer(s, s),
		params:        runtime.NewParameterCodec(s),
		contentType:   cfg.ContentType,
		timeout:       cfg.Timeout,
		maxRetries:    maxRetries,
		maxAfter:      orDefault(cfg.Limits.MaxRetryAfter, defaultMaxRetryAfter),
		maxFrame:      orDefault(cfg.Limits.MaxFrameBytes, defaultMaxFrameBytes),
		retryWait:     orDefault(cfg.Limits.MaxRetryWait, defaultMaxRetryWait),
		maxBody:       orDefault(cfg.Limits.MaxResponseBytes, defaultMaxResponseBytes),
		gzipRatio:     int64(orDefault(cfg.Limits.MaxGzipRatio, defaultMaxGzipRatio)),
		noGzip:        cfg.DisableCompression,
		headerTimeout: orDefault(cfg.Limits.ResponseHeaderTimeout, defaultResponseHeaderTimeout),
		bodyProgress:  orDefault(cfg.Limits.ResponseBodyProgressTimeout, defaultBodyProgressTimeout),
		static:        staticSecrets(cfg),
		limiter:       cfg.RateLimiter,
		logger:        logger,
		clock:         clk,
		warnings:      cfg.WarningHandler,
		agent:         agent,
	}
	if c.warnings == nil {
		c.warnings = &logOnce{logger: logger}
	}
	return c, nil
}

// staticSecrets lists the credentials cfg holds in readable form.
func staticSecrets(cfg *Config) []secret.Value {
	var out []secret.Value
	if cfg.BearerToken != "" {
		out = append(out, secret.New(cfg.BearerToken))
	}
	if cfg.Password != "" {
		out = append(out, secret.New(cfg.Password), newBasicRT("", cfg.Username, cfg.Password, nil).header)
	}
	return out
}

// Scheme returns the type registry the client decodes with. It must not be
// modified. For a Config that named no scheme it registers the meta/v1
// types only (options, Status, watch events): the client then recognises the
// built-in kinds of k8s.io/api by their Go types instead (KindsOf), so
// that a program links only the API groups it uses.
func (c *Client) Scheme() *runtime.Scheme {
	if c == nil {
		return metaScheme()
	}
	return c.scheme
}

// metaScheme is the scheme of a Config that names none: the meta/v1 types.
var metaScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, metaV1)
	return s
})

// KindsOf returns the kinds the client sends and decodes obj's Go type as:
// those of the client's scheme, else, for a client whose Config named no
// scheme, those of a built-in kind of k8s.io/api. It returns nil for a
// type the client does not know (it then travels as JSON, as is).
func (c *Client) KindsOf(obj runtime.Object) []schema.GroupVersionKind {
	if obj == nil {
		return nil
	}
	if c == nil {
		c = unusable()
	}
	if gvks, _, err := c.scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		return gvks
	}
	if !c.builtins {
		return nil
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil
	}
	return builtin.KindsOf(reflect.TypeOf(obj))
}

// builtinOnly returns the kinds of obj's Go type when the client knows it
// from the table of built-in kinds but its scheme does not (a client whose
// Config named no scheme), else nil. The decoders check such an object's
// kind themselves, where the scheme's serializers would take any body.
func (c *Client) builtinOnly(obj runtime.Object) []schema.GroupVersionKind {
	if !c.builtins || obj == nil {
		return nil
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil
	}
	if _, _, err := c.scheme.ObjectKinds(obj); err == nil {
		return nil
	}
	return builtin.KindsOf(reflect.TypeOf(obj))
}

// ErrNilClient is the error of every request started from a nil *Client
// (a program that passed a client it never built): the request is not
// sent and its Do, Watch, Stream and Upgrade return this error, wrapped
// with ErrInvalidRequest, instead of a nil pointer dereference.
var ErrNilClient = errors.New("nil *rest.Client (build one with NewClient)")

// unusable is what the methods of a nil *Client work on: a client that
// names a host nobody resolves, so that a request built from it has the
// fields a request reads; every request from a nil *Client carries
// ErrNilClient and is never sent.
var unusable = sync.OnceValue(func() *Client {
	c, err := NewClient(&Config{Host: "https://nil-client.invalid"})
	if err != nil {
		return &Client{scheme: metaScheme(), base: &url.URL{Scheme: "https", Host: "nil-client.invalid"}}
	}
	return c
})

// Verb starts a request with the given HTTP method.
func (c *Client) Verb(method string) *Request {
	if c == nil {
		r := &Request{c: unusable(), verb: method}
		r.err = fmt.Errorf("%w: %w", ErrInvalidRequest, ErrNilClient)
		return r
	}
	return &Request{c: c, verb: method}
}

// Get starts a GET request.
func (c *Client) Get() *Request { return c.Verb(http.MethodGet) }

// Post starts a POST request.
func (c *Client) Post() *Request { return c.Verb(http.MethodPost) }

// Put starts a PUT request.
func (c *Client) Put() *Request { return c.Verb(http.MethodPut) }

// Delete starts a DELETE request.
func (c *Client) Delete() *Request { return c.Verb(http.MethodDelete) }

// Patch starts a PATCH request whose body is of patch type pt (it becomes
// the Content-Type).
func (c *Client) Patch(pt types.PatchType) *Request {
	r := c.Verb(http.MethodPatch)
	r.patchType = pt
	return r
}

// protoMarshaler is implemented by the generated k8s.io/api types.
type protoMarshaler interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

const metaPkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// isProtoGV reports whether gv is registered in the client's scheme with
// types that can be sent in protobuf (the built-in kinds do; CRD Go types
// added to a custom scheme do not). meta/v1 option types,
// registered in every group/version, are ignored.
func (c *Client) isProtoGV(gv schema.GroupVersion) bool {
	if v, ok := c.protoGVs.Load(gv); ok {
		return v.(bool)
	}
	ok := false
	for _, t := range c.scheme.KnownTypes(gv) {
		if t.PkgPath() == metaPkg {
			continue
		}
		if _, isProto := newOf(t).(protoMarshaler); isProto {
			ok = true
			break
		}
	}
	c.protoGVs.Store(gv, ok)
	return ok
}
