package webhookconfig

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
)

// Mux is where a Set mounts its handlers: a *webhook.Server, or an
// *http.ServeMux.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Admission says what kube-apiserver sends to one admission webhook and
// how it treats the webhook's failures. The zero value sends creates and
// updates of the handler's type, fails the request when the webhook
// cannot be reached (Fail), and declares no side effects.
type Admission struct {
	// Name is the webhook's name in its configuration, a qualified name of
	// three or more segments that kube-apiserver quotes in denials; empty
	// means the path's segments joined by "-", then ".<Set name>.kubego.io"
	// ("/validate-widgets" in Set "widgets" is
	// "validate-widgets.widgets.kubego.io").
	Name string
	// Operations sent; nil means Create and Update.
	Operations []admissionregistrationv1.OperationType
	// Subresources are added to the rule's resources ("status" sends
	// widgets/status too); nil sends the main resource only.
	Subresources []string
	// FailurePolicy decides what a failed call means; empty is Fail.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// SideEffects of the webhook; empty is None (dry-run requests are sent
	// too). NoneOnDryRun is the other choice kube-apiserver v1 accepts.
	SideEffects admissionregistrationv1.SideEffectClass
	// TimeoutSeconds bounds each call (1 to 30); zero is kube-apiserver's
	// default of 10.
	TimeoutSeconds int32
	// MatchConditions are CEL expressions a request must all match to be
	// sent; nil sends every request the rules select.
	MatchConditions []admissionregistrationv1.MatchCondition
	// NamespaceSelector and ObjectSelector narrow the requests sent; nil
	// selects all.
	NamespaceSelector, ObjectSelector *metav1.LabelSelector
	// ReinvocationPolicy of a mutating webhook; empty is Never. Ignored
	// for validating webhooks.
	ReinvocationPolicy admissionregistrationv1.ReinvocationPolicyType
}

// Set is the webhooks of one program: each handler is registered once,
// with its path and what it admits, and mounted on the server at once;
// Configurations then makes the webhook configurations that send
// kube-apiserver's requests to those paths. Register before the server
// serves; a Set is safe for concurrent use.
type Set struct {
	name string
	mux  Mux

	mu          sync.Mutex
	admission   []registration
	conversions []conversionRegistration
}

// registration is one admission webhook of a Set.
type registration struct {
	path     string
	mutating bool
	opts     Admission
	resolve  func(context.Context, *client.Client) (client.Mapping, error)
}

// conversionRegistration is one conversion webhook of a Set.
type conversionRegistration struct {
	path    string
	resolve func(context.Context, *client.Client) (client.Mapping, error)
}

// NewSet returns an empty Set named name (the name of the configurations
// it makes) whose handlers are mounted on mux.
func NewSet(name string, mux Mux) *Set {
	return &Set{name: name, mux: mux}
}

// Name is the name of the configurations the Set makes.
func (s *Set) Name() string { return s.name }

// resolver maps T to its resource through the client given to
// Configurations: its Registry, the built-in kinds, or discovery.
func resolver[P informer.Object]() func(context.Context, *client.Client) (client.Mapping, error) {
	return func(ctx context.Context, c *client.Client) (client.Mapping, error) {
		return client.Typed[P](c).Mapping(ctx)
	}
}

// Validate mounts a validating webhook for type T at path (an
// admission.Validating handler) and registers it in s: its configuration
// sends opts.Operations on T's resource.
func Validate[T any, P interface {
	*T
	informer.Object
}](s *Set, path string, v admission.Validator[P], opts Admission) {
	s.mux.Handle(path, admission.New(admission.Validating[T](v, admission.TypedOptions{}), admission.Options{}))
	s.add(registration{path: path, opts: opts, resolve: resolver[P]()})
}

// Default mounts a mutating webhook for type T at path (an
// admission.Defaulting handler) and registers it in s: its configuration
// sends opts.Operations on T's resource.
func Default[T any, P interface {
	*T
	informer.Object
}](s *Set, path string, d admission.Defaulter[P], opts Admission) {
	s.mux.Handle(path, admission.New(admission.Defaulting[T](d, admission.TypedOptions{}), admission.Options{}))
	s.add(registration{path: path, mutating: true, opts: opts, resolve: resolver[P]()})
}

// Convert mounts wh at path as the conversion webhook of the
// CustomResourceDefinition that serves T (any of its versions).
func Convert[T any, P interface {
	*T
	informer.Object
}](s *Set, path string, wh *conversion.Webhook) {
	s.mux.Handle(path, wh)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conversions = append(s.conversions, conversionRegistration{path: path, resolve: resolver[P]()})
}

func (s *Set) add(r registration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.admission = append(s.admission, r)
}

func (s *Set) registrations() ([]registration, []conversionRegistration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]registration(nil), s.admission...), append([]conversionRegistration(nil), s.conversions...)
}

func (r registration) String() string {
	kind := "validating"
	if r.mutating {
		kind = "mutating"
	}
	return fmt.Sprintf("%s webhook at %s", kind, r.path)
}
