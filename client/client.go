package client

import (
	"context"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/rest"
)

// Mapping ties a kind to its resource and scope.
type Mapping = discovery.Mapping

// Mapper resolves kinds the client does not know by itself, typically from
// the server's discovery. *discovery.RESTMapper implements it. It must be
// safe for concurrent use.
type Mapper interface {
	// RESTMapping returns the mapping of gk, in one of versions when given
	// (in order of preference), else in the server's preferred version.
	RESTMapping(ctx context.Context, gk schema.GroupKind, versions ...string) (Mapping, error)
}

// Options configure a Client. The zero value serves the built-in kinds.
type Options struct {
	// Registry maps the Go types of custom resources to their resources. Nil
	// means none are registered.
	Registry *Registry
	// Mapper resolves kinds that are neither built in nor in Registry but
	// are known to the rest client's scheme (a CRD type added to a custom
	// scheme): their resource is found through discovery. Nil means such
	// types are an *UnknownTypeError.
	Mapper Mapper
	// FieldManager is the field manager of every write whose options name
	// none: Create, Update, UpdateStatus, Patch, Apply, ApplyStatus and the
	// subresource writes. Empty means the writes other than apply send
	// none, so the server names their manager after the User-Agent up to
	// its first "/" (the program's name, with rest's default User-Agent),
	// and an apply, which must name one, sends that same name.
	FieldManager string
}

// Client is the entry point of typed access: it holds the rest client and
// the type-to-resource knowledge that Typed uses. It is safe for concurrent
// use and cheap to share; Resource values made from it are too.
type Client struct {
	rest     *rest.Client
	registry *Registry
	mapper   Mapper
	// fieldManager is Options.FieldManager, given to every write that
	// names none; applyManager is the one applies send when neither the
	// call nor the Options name one.
	fieldManager string
	applyManager string

	types      sync.Map // reflect.Type → *typeInfo
	applyTypes sync.Map // reflect.Type → *applyTypeOnce
}

// New returns a Client over rc. rc's scheme decides which Go types are
// decoded through the scheme (and may travel in protobuf); other types are
// sent and read as JSON.
func New(rc *rest.Client, opts Options) *Client {
	am := opts.FieldManager
	if am == "" {
		am = rc.FieldManager()
	}
	return &Client{rest: rc, registry: opts.Registry, mapper: opts.Mapper, fieldManager: opts.FieldManager, applyManager: am}
}

// NewForConfig builds a rest client from cfg and a Client over it. It
// returns the rest client's *rest.ConfigError when cfg is not usable.
func NewForConfig(cfg *rest.Config, opts Options) (*Client, error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return New(rc, opts), nil
}

// managerOf names a field manager after a User-Agent as kube-apiserver
// does: the part before the first "/". An empty result is "kubego".

// REST returns the underlying rest client.
func (c *Client) REST() *rest.Client { return c.rest }

// typeOf returns the cached description of Go type t (a pointer type).
func (c *Client) typeOf(t reflect.Type) *typeInfo {
	if v, ok := c.types.Load(t); ok {
		return v.(*typeInfo)
	}
	ti := c.describe(t)
	v, _ := c.types.LoadOrStore(t, ti)
	return v.(*typeInfo)
}

// defaultManager sets *fm to the Client's field manager when it is empty.
func (c *Client) defaultManager(fm *string) {
	if *fm == "" {
		*fm = c.fieldManager
	}
}
