package webhookconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
)

// BundleSource gives the caBundle to keep and a channel closed when it
// changes. *Certificates is one.
type BundleSource interface {
	Bundle() (pem []byte, changed <-chan struct{})
}

// BundleOptions configure a BundleUpdater: the objects whose caBundle it
// keeps, by name. Every other zero value picks the documented default.
type BundleOptions struct {
	// Mutating and Validating name webhook configurations: the caBundle
	// of each of their webhooks is kept.
	Mutating, Validating []string
	// CRDs name CustomResourceDefinitions: the caBundle of their
	// spec.conversion.webhook.clientConfig is kept.
	CRDs []string
	// Resync is how often every object is checked again even when the
	// bundle did not change (an apply of the install manifests may have
	// emptied a caBundle); zero means DefaultResync.
	Resync time.Duration
	// Clock times Resync; nil is the wall clock.
	Clock clock.Clock
	// Logger receives the patches (Info) and failures (Warn); nil sends
	// warnings to slog.Default() (internal/defaultlog).
	Logger *slog.Logger
}

// BundleUpdater keeps the caBundle of webhook configurations and of CRDs'
// conversion webhooks equal to its source's bundle: it patches an object
// whose caBundle differs when the bundle changes and every Resync. An
// object that does not exist (yet) is skipped until the next check.
//
// It is a manager.Runnable that needs leader election, so that one
// replica writes (another replica may briefly hold an older bundle while
// a rotation spreads). Its methods are safe for concurrent use.
type BundleUpdater struct {
	c       *client.Client
	src     BundleSource
	opts    BundleOptions
	clock   clock.Clock
	log     *slog.Logger
	started atomic.Bool
}

// NewBundleUpdater checks the options; nothing is read or written before
// Start.
func NewBundleUpdater(c *client.Client, src BundleSource, opts BundleOptions) (*BundleUpdater, error) {
	if c == nil || src == nil {
		return nil, fmt.Errorf("%w: a client and a BundleSource are required", ErrInvalidOptions)
	}
	if len(opts.Mutating)+len(opts.Validating)+len(opts.CRDs) == 0 {
		return nil, fmt.Errorf("%w: no objects to keep the caBundle of", ErrInvalidOptions)
	}
	if opts.Resync < 0 {
		return nil, fmt.Errorf("%w: negative Resync", ErrInvalidOptions)
	}
	if opts.Resync == 0 {
		opts.Resync = DefaultResync
	}
	return &BundleUpdater{c: c, src: src, opts: opts, clock: clock.Or(opts.Clock), log: defaultlog.Or(opts.Logger)}, nil
}

// NeedLeaderElection reports true: one replica writes.
func (u *BundleUpdater) NeedLeaderElection() bool { return true }

// Start keeps the caBundles until ctx ends, then returns nil. Failures
// are logged and retried with backoff (at most Resync apart), and at the
// next change of the bundle.
func (u *BundleUpdater) Start(ctx context.Context) error {
	if !u.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	retry := backoff.Backoff{Initial: time.Second / 2, Max: u.opts.Resync, Factor: 2, Jitter: 0.2}
	failures := 0
	for {
		bundle, changed := u.src.Bundle()
		wait := u.opts.Resync
		if len(bundle) > 0 {
			if err := u.Sync(ctx, bundle); err != nil && ctx.Err() == nil {
				failures++
				wait = retry.Jittered(retry.Delay(failures))
				u.log.Warn("webhookconfig: keeping caBundles failed; retrying", "err", err, "after", wait)
			} else {
				failures = 0
			}
		}
		tick, stop := clock.NewTimer(u.clock, wait)
		select {
		case <-ctx.Done():
			stop()
			return nil
		case <-changed:
		case <-tick:
		}
		stop()
	}
}

// Sync patches, once, every configured object whose caBundle is not
// bundle. Objects that do not exist are skipped; the errors of the others
// are joined.
func (u *BundleUpdater) Sync(ctx context.Context, bundle []byte) error {
	var errs []error
	for _, name := range u.opts.Mutating {
		errs = append(errs, retried(func() error {
			return syncWebhooks(ctx, u, client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](u.c), name, bundle,
				func(c *admissionregistrationv1.MutatingWebhookConfiguration) [][]byte {
					out := make([][]byte, len(c.Webhooks))
					for i, w := range c.Webhooks {
						out[i] = w.ClientConfig.CABundle
					}
					return out
				})
		}))
	}
	for _, name := range u.opts.Validating {
		errs = append(errs, retried(func() error {
			return syncWebhooks(ctx, u, client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](u.c), name, bundle,
				func(c *admissionregistrationv1.ValidatingWebhookConfiguration) [][]byte {
					out := make([][]byte, len(c.Webhooks))
					for i, w := range c.Webhooks {
						out[i] = w.ClientConfig.CABundle
					}
					return out
				})
		}))
	}
	crds := client.TypedMapping[*unstructured.Unstructured](u.c, client.Mapping{
		Resource: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		Kind:     schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	})
	for _, name := range u.opts.CRDs {
		errs = append(errs, retried(func() error { return u.syncCRD(ctx, crds, name, bundle) }))
	}
	return errors.Join(errs...)
}

// patchOp is one operation of a JSON patch.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// syncWebhooks patches the caBundle of every webhook of the configuration
// name that differs from bundle, conditional on the resourceVersion read.
func syncWebhooks[T interface {
	*admissionregistrationv1.MutatingWebhookConfiguration | *admissionregistrationv1.ValidatingWebhookConfiguration
	metav1.Object
	informer.Object
}](ctx context.Context, u *BundleUpdater, r *client.Resource[T], name string, bundle []byte, bundles func(T) [][]byte) error {
	obj, err := r.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		u.log.Debug("webhookconfig: webhook configuration not found; skipped", "name", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading webhook configuration %s: %w", name, err)
	}
	ops := []patchOp{{Op: "test", Path: "/metadata/resourceVersion", Value: obj.GetResourceVersion()}}
	for i, b := range bundles(obj) {
		if !bytes.Equal(b, bundle) {
			ops = append(ops, patchOp{Op: "add", Path: "/webhooks/" + strconv.Itoa(i) + "/clientConfig/caBundle", Value: bundle})
		}
	}
	if len(ops) == 1 {
		return nil
	}
	return patch(ctx, u, r, name, "webhook configuration", ops)
}

func (u *BundleUpdater) syncCRD(ctx context.Context, r *client.Resource[*unstructured.Unstructured], name string, bundle []byte) error {
	obj, err := r.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		u.log.Debug("webhookconfig: CRD not found; skipped", "name", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading CRD %s: %w", name, err)
	}
	if strategy, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "strategy"); strategy != "Webhook" {
		u.log.Debug("webhookconfig: CRD has no conversion webhook; skipped", "name", name)
		return nil
	}
	if _, ok, _ := unstructured.NestedMap(obj.Object, "spec", "conversion", "webhook", "clientConfig"); !ok {
		return nil
	}
	current, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
	want, _ := json.Marshal(bundle) // a JSON string of the base64
	if `"`+current+`"` == string(want) {
		return nil
	}
	ops := []patchOp{
		{Op: "test", Path: "/metadata/resourceVersion", Value: obj.GetResourceVersion()},
		{Op: "add", Path: "/spec/conversion/webhook/clientConfig/caBundle", Value: bundle},
	}
	return patch(ctx, u, r, name, "CRD", ops)
}

// errStale is returned by patch when the object changed since it was
// read (the patch's test of its resourceVersion failed).
var errStale = errors.New("changed since read")

// patch applies a JSON patch whose first operation tests the
// resourceVersion read.
func patch[T informer.Object](ctx context.Context, u *BundleUpdater, r *client.Resource[T], name, what string, ops []patchOp) error {
	data, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encoding the patch of %s %s: %w", what, name, err)
	}
	_, err = r.DiscardResults().Patch(ctx, name, types.JSONPatchType, data, metav1.PatchOptions{})
	switch {
	case err == nil:
		u.log.Info("webhookconfig: caBundle updated", "kind", what, "name", name, "fields", len(ops)-1)
		return nil
	case apierrors.IsConflict(err) || apierrors.IsInvalid(err) || apierrors.IsNotFound(err):
		return fmt.Errorf("patching %s %s: %w: %w", what, name, errStale, err)
	default:
		return fmt.Errorf("patching %s %s: %w", what, name, err)
	}
}

// retried runs f again, up to 5 times in all, while it fails with
// errStale: another writer changed the object between read and patch.
func retried(f func() error) error {
	var err error
	for range 5 {
		if err = f(); !errors.Is(err, errStale) {
			return err
		}
	}
	return err
}
