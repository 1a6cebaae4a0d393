package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

// DefaultFieldManager owns the fields Install applies when Options names
// no other.
const DefaultFieldManager = "kubego-install"

// InventoryKey is the key of the inventory ConfigMap's data that lists
// the objects an installation created.
const InventoryKey = "objects"

var (
	// ErrNotInstalled is returned by Uninstall when the operator's
	// inventory is not found: nothing was installed, or it was removed.
	ErrNotInstalled = errors.New("install: not installed")
	// ErrUnknownKind is wrapped by the error for an object of a kind
	// Install does not know the resource of.
	ErrUnknownKind = errors.New("install: unknown kind")
)

// Options configure Install and Uninstall. The zero value is ready to
// use.
type Options struct {
	// FieldManager owns the applied fields. Empty means
	// DefaultFieldManager.
	FieldManager string
	// KeepCRDs makes Uninstall leave the CustomResourceDefinitions, and
	// so every custom object, in place.
	KeepCRDs bool
	// Logger receives a record per object. Nil means none.
	Logger *slog.Logger
}

// Ref names one object of an installation.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

func (r Ref) String() string {
	if r.Namespace != "" {
		return r.Kind + " " + r.Namespace + "/" + r.Name
	}
	return r.Kind + " " + r.Name
}

func refOf(u *unstructured.Unstructured) Ref {
	return Ref{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// Result says what Install or Uninstall did to each object.
type Result struct {
	// Created were absent and were created; Changed existed and were
	// changed; Unchanged existed as applied (the server wrote nothing);
	// Kept existed before the installation and were left alone (a
	// Namespace).
	Created, Changed, Unchanged, Kept []Ref
	// Deleted were removed by Uninstall; Gone were already absent.
	Deleted, Gone []Ref
}

// resources maps the kinds of an installation to their resources.
var resources = map[schema.GroupKind]string{
	{Kind: "Namespace"}:                 "namespaces",
	{Kind: "ServiceAccount"}:            "serviceaccounts",
	{Kind: "Service"}:                   "services",
	{Kind: "ConfigMap"}:                 "configmaps",
	{Kind: "Secret"}:                    "secrets",
	{Group: "apps", Kind: "Deployment"}: "deployments",
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                       "clusterroles",
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                "clusterrolebindings",
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                              "roles",
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                       "rolebindings",
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:               "customresourcedefinitions",
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   "mutatingwebhookconfigurations",
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: "validatingwebhookconfigurations",
}

// resourceOf returns the client of the object r names.
func resourceOf(c *dynamic.Client, r Ref) (*dynamic.Resource, error) {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("install: %s: %w", r, err)
	}
	plural, ok := resources[schema.GroupKind{Group: gv.Group, Kind: r.Kind}]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownKind, r)
	}
	res := c.Resource(gv.WithResource(plural))
	if r.Namespace != "" {
		res = res.Namespace(r.Namespace)
	}
	return res, nil
}

// inventoryName is the name of the ConfigMap listing what an
// installation created.
func inventoryName(operator string) string { return operator + "-install" }

// Install applies the operator's objects (Objects) with server-side apply,
// in order, and waits for its CRDs to be served before the objects that
// follow them. It is idempotent: installing the same Operator again
// changes nothing (every object Unchanged). A Namespace that existed
// before the first installation is left as it is.
//
// Before creating an object it records it in an inventory, the ConfigMap
// <Name>-install in the operator's namespace, so that Uninstall removes
// exactly what an installation created — also after an installation that
// failed half way — and nothing that existed before it.
func Install(ctx context.Context, c *dynamic.Client, o Operator, opts Options) (Result, error) {
	var res Result
	objs, err := o.Objects()
	if err != nil {
		return res, err
	}
	fm := opts.FieldManager
	if fm == "" {
		fm = DefaultFieldManager
	}
	inv := inventory{c: c, o: o, fm: fm}
	if err := inv.load(ctx); err != nil && !errors.Is(err, ErrNotInstalled) {
		return res, err
	}
	for i, obj := range objs {
		ref := refOf(obj)
		r, err := resourceOf(c, ref)
		if err != nil {
			return res, err
		}
		before, err := r.Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			before = nil
			if err := inv.add(ctx, ref); err != nil {
				return res, err
			}
		case err != nil:
			return res, fmt.Errorf("install: reading %s: %w", ref, err)
		case ref.Kind == "Namespace" && !inv.created(ref):
			res.Kept = append(res.Kept, ref)
			opts.log().Info("kept", "object", ref.String())
			if err := inv.save(ctx); err != nil { // the namespace exists: the inventory can live there
				return res, err
			}
			continue
		}
		after, err := r.Apply(ctx, obj, dynamic.ApplyOptions{FieldManager: fm, Force: true})
		if err != nil {
			return res, fmt.Errorf("install: applying %s: %w", ref, err)
		}
		switch {
		case before == nil:
			res.Created = append(res.Created, ref)
		case before.GetResourceVersion() == after.GetResourceVersion():
			res.Unchanged = append(res.Unchanged, ref)
		default:
			res.Changed = append(res.Changed, ref)
		}
		opts.log().Info("applied", "object", ref.String(), "created", before == nil)
		if i == 0 {
			if err := inv.save(ctx); err != nil {
				return res, err
			}
		}
		if ref.Kind == "CustomResourceDefinition" && (i+1 == len(objs) || objs[i+1].GetKind() != ref.Kind) {
			for _, d := range o.CRDs {
				if err := crd.Wait(ctx, c, d.GetName()); err != nil {
					return res, fmt.Errorf("install: %w", err)
				}
			}
		}
	}
	return res, nil
}

// Uninstall deletes, in the reverse order of their creation, the objects
// an installation of the operator named name in namespace created (its
// inventory), then the inventory; objects that existed before the
// installation, and objects the operator made while running in a
// namespace it did not create, stay. Deletions run in the background:
// a Namespace or a CRD is gone once the server finished removing what it
// holds. It returns ErrNotInstalled when there is no inventory.
func Uninstall(ctx context.Context, c *dynamic.Client, name, namespace string, opts Options) (Result, error) {
	var res Result
	inv := inventory{c: c, o: Operator{Name: name, Namespace: namespace}}
	if err := inv.load(ctx); err != nil {
		return res, err
	}
	refs := slices.Clone(inv.refs)
	slices.Reverse(refs)
	// The Namespace (if the installation created it) goes last, after
	// the inventory inside it.
	var ns *Ref
	for _, ref := range refs {
		if ref.Kind == "Namespace" {
			ns = &ref
			continue
		}
		if opts.KeepCRDs && ref.Kind == "CustomResourceDefinition" {
			res.Kept = append(res.Kept, ref)
			continue
		}
		if err := remove(ctx, c, ref, &res); err != nil {
			return res, err
		}
		opts.log().Info("deleted", "object", ref.String())
	}
	if err := remove(ctx, c, inv.ref(), &res); err != nil {
		return res, err
	}
	if ns != nil {
		if err := remove(ctx, c, *ns, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func remove(ctx context.Context, c *dynamic.Client, ref Ref, res *Result) error {
	r, err := resourceOf(c, ref)
	if err != nil {
		return err
	}
	bg := metav1.DeletePropagationBackground
	err = r.Delete(ctx, ref.Name, metav1.DeleteOptions{PropagationPolicy: &bg})
	switch {
	case apierrors.IsNotFound(err):
		res.Gone = append(res.Gone, ref)
	case err != nil:
		return fmt.Errorf("install: deleting %s: %w", ref, err)
	default:
		res.Deleted = append(res.Deleted, ref)
	}
	return nil
}

func (o Options) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// inventory is the list of objects an installation created, kept in a
// ConfigMap in the operator's namespace.
type inventory struct {
	c      *dynamic.Client
	o      Operator
	fm     string
	refs   []Ref
	loaded bool // the ConfigMap exists
}

func (inv *inventory) ref() Ref {
	return Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: inv.o.Namespace, Name: inventoryName(inv.o.Name)}
}

func (inv *inventory) load(ctx context.Context) error {
	r, _ := resourceOf(inv.c, inv.ref())
	cm, err := r.Get(ctx, inv.ref().Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ErrNotInstalled
	}
	if err != nil {
		return fmt.Errorf("install: reading the inventory: %w", err)
	}
	raw, _, _ := unstructured.NestedString(cm.Object, "data", InventoryKey)
	if err := json.Unmarshal([]byte(raw), &inv.refs); err != nil {
		return fmt.Errorf("install: the inventory %s is not readable: %w", inv.ref(), err)
	}
	inv.loaded = true
	return nil
}

func (inv *inventory) created(ref Ref) bool { return slices.Contains(inv.refs, ref) }

// add records ref before it is created; it is saved at once when the
// inventory's namespace exists.
func (inv *inventory) add(ctx context.Context, ref Ref) error {
	if !inv.created(ref) {
		inv.refs = append(inv.refs, ref)
	}
	if ref.Kind == "Namespace" && ref.Name == inv.o.Namespace {
		return nil // the inventory cannot be saved before its namespace exists
	}
	return inv.save(ctx)
}

// save applies the inventory ConfigMap.
func (inv *inventory) save(ctx context.Context) error {
	raw, err := json.Marshal(inv.refs)
	if err != nil {
		return err
	}
	ref := inv.ref()
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": ref.Name, "namespace": ref.Namespace, "labels": toAny(inv.o.labels())},
		"data":     map[string]any{InventoryKey: string(raw)},
	}}
	r, _ := resourceOf(inv.c, ref)
	if _, err := r.Apply(ctx, cm, dynamic.ApplyOptions{FieldManager: inv.fm, Force: true}); err != nil {
		return fmt.Errorf("install: saving the inventory: %w", err)
	}
	inv.loaded = true
	return nil
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
