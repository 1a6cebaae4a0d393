package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/rest"
)

// MigrationAnnotation is the annotation on a CustomResourceDefinition that
// records how far a storage migration got: the version being migrated to
// and the continue token of the next page. MigrateStorage writes it after
// every page and removes it when done.
const MigrationAnnotation = "crd.kubego.io/storage-migration"

// MigrationFieldManager is the field manager of the migration's writes.
const MigrationFieldManager = "kubego-storage-migration"

// MigrationOptions configure MigrateStorage and a Migrator. The zero value
// is ready to use.
type MigrationOptions struct {
	// PageSize is the number of objects per LIST page, and so how much
	// work a restart may repeat. Zero means 100.
	PageSize int64
	// Limiter paces the rewrites (one Wait per object written). Nil means
	// 50 writes per second.
	Limiter rest.RateLimiter
	// Logger receives a record per page and per failure. Nil means none.
	Logger *slog.Logger
	// Conflicts is how many times one object is read again and rewritten
	// after a conflict before the migration fails. Zero means 5.
	Conflicts int
}

// MigrationResult says what a storage migration did.
type MigrationResult struct {
	// Name is the definition's name; Version its storage version, the
	// one every object is now stored in.
	Name, Version string
	// Dropped are the versions removed from status.storedVersions.
	Dropped []string
	// Rewritten counts the objects the server stored again; Current the
	// objects it did not need to (already in Version); Gone the objects
	// deleted while the migration ran.
	Rewritten, Current, Gone int
	// Resumed is true when the migration continued one that a restart had
	// interrupted.
	Resumed bool
}

// ErrMigration is wrapped by the errors of MigrateStorage that are not the
// server's or the context's own: a definition without a storage version,
// an object that kept conflicting.
var ErrMigration = errors.New("crd: storage migration failed")

// progress is the content of MigrationAnnotation.
type progress struct {
	To       string `json:"to"`
	Continue string `json:"continue,omitempty"`
}

// MigrateStorage moves every stored object of the CustomResourceDefinition
// name to its storage version, then removes every other version from its
// status.storedVersions, so that those versions can be removed from the
// definition. A definition whose storedVersions is already only the
// storage version is left alone (no LIST).
//
// Each object is listed in the storage version and written back unchanged
// (an update with its resourceVersion): kube-apiserver encodes it in the
// storage version, and skips the write of an object already stored so.
// A conflict reads the object again; an object deleted meanwhile is
// skipped. Pages are LIST pages of PageSize; after each one, the next
// page's continue token is kept in the definition's MigrationAnnotation,
// so a migration stopped by a restart or an error resumes there (from the
// start when the token expired: objects already moved cost a read and no
// write). Objects written by others while the migration runs are stored
// in the storage version by the server itself.
//
// Run one migration per definition at a time (a Migrator in a
// leader-elected Manager does). The change of storage version must have
// reached every API server before migrating, which it has when it was
// made through the API server this client talks to and there is one.
func MigrateStorage(ctx context.Context, c *dynamic.Client, name string, opts MigrationOptions) (MigrationResult, error) {
	res := MigrationResult{Name: name}
	opts = opts.withDefaults()
	crds := c.Resource(Resource)
	def, err := crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return res, err
	}
	gvr, stored, err := storage(def)
	if err != nil {
		return res, err
	}
	res.Version = gvr.Version
	if len(stored) == 1 && stored[0] == gvr.Version {
		return res, nil
	}
	p := progress{To: gvr.Version}
	if raw := def.GetAnnotations()[MigrationAnnotation]; raw != "" {
		var prev progress
		if json.Unmarshal([]byte(raw), &prev) == nil && prev.To == gvr.Version {
			p.Continue = prev.Continue
			res.Resumed = p.Continue != ""
		}
	}
	objs := c.Resource(gvr)
	for {
		list, err := objs.List(ctx, metav1.ListOptions{Limit: opts.PageSize, Continue: p.Continue})
		if p.Continue != "" && (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) {
			opts.log().Info("storage migration: continue token expired, listing from the start", "crd", name)
			p.Continue = ""
			continue
		}
		if err != nil {
			return res, fmt.Errorf("crd: listing %s for storage migration: %w", gvr, err)
		}
		for i := range list.Items {
			if err := rewrite(ctx, objs, &list.Items[i], opts, &res); err != nil {
				return res, err
			}
		}
		p.Continue = list.GetContinue()
		if p.Continue == "" {
			break
		}
		if err := saveProgress(ctx, c, name, &p); err != nil {
			return res, err
		}
		opts.log().Info("storage migration: page done", "crd", name, "version", gvr.Version,
			"rewritten", res.Rewritten, "current", res.Current, "gone", res.Gone)
	}
	dropped, err := dropStoredVersions(ctx, c, name, gvr.Version)
	if err != nil {
		return res, err
	}
	res.Dropped = dropped
	if err := saveProgress(ctx, c, name, nil); err != nil {
		return res, err
	}
	opts.log().Info("storage migration: done", "crd", name, "version", gvr.Version, "dropped", dropped,
		"rewritten", res.Rewritten, "current", res.Current, "gone", res.Gone)
	return res, nil
}

func (o MigrationOptions) withDefaults() MigrationOptions {
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.Conflicts <= 0 {
		o.Conflicts = 5
	}
	if o.Limiter == nil {
		// Fixed, valid options: NewTokenBucket cannot fail on them.
		tb, _ := rest.NewTokenBucket(rest.TokenBucketOptions{QPS: 50, Burst: 50})
		o.Limiter = tb
	}
	return o
}

func (o MigrationOptions) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// storage returns the resource of the definition's storage version and
// its status.storedVersions.
func storage(def *unstructured.Unstructured) (schema.GroupVersionResource, []string, error) {
	group, _, _ := unstructured.NestedString(def.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(def.Object, "spec", "names", "plural")
	stored, _, _ := unstructured.NestedStringSlice(def.Object, "status", "storedVersions")
	versions, _, _ := unstructured.NestedSlice(def.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if ok, _, _ := unstructured.NestedBool(vm, "storage"); ok {
			name, _, _ := unstructured.NestedString(vm, "name")
			return schema.GroupVersionResource{Group: group, Version: name, Resource: plural}, stored, nil
		}
	}
	return schema.GroupVersionResource{}, nil, fmt.Errorf("%w: %s has no storage version", ErrMigration, def.GetName())
}

// rewrite stores obj again, reading it anew after each conflict.
func rewrite(ctx context.Context, objs *dynamic.Resource, obj *unstructured.Unstructured, opts MigrationOptions, res *MigrationResult) error {
	r := objs
	if ns := obj.GetNamespace(); ns != "" {
		r = objs.Namespace(ns)
	}
	for attempt := 0; ; attempt++ {
		if err := opts.Limiter.Wait(ctx); err != nil {
			return err
		}
		before := obj.GetResourceVersion()
		out, err := r.Update(ctx, obj, metav1.UpdateOptions{FieldManager: MigrationFieldManager})
		switch {
		case err == nil:
			if out.GetResourceVersion() == before {
				res.Current++
			} else {
				res.Rewritten++
			}
			return nil
		case apierrors.IsNotFound(err):
			res.Gone++
			return nil
		case !apierrors.IsConflict(err):
			return fmt.Errorf("crd: storage migration of %s: %w", objectName(obj), err)
		case attempt+1 >= opts.Conflicts:
			return fmt.Errorf("%w: %s conflicted %d times: %w", ErrMigration, objectName(obj), opts.Conflicts, err)
		}
		fresh, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			res.Gone++
			return nil
		}
		if err != nil {
			return fmt.Errorf("crd: storage migration of %s: %w", objectName(obj), err)
		}
		obj = fresh
	}
}

func objectName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// saveProgress writes p into the definition's MigrationAnnotation, or
// removes the annotation when p is nil.
func saveProgress(ctx context.Context, c *dynamic.Client, name string, p *progress) error {
	var value any // a JSON null removes the annotation
	if p != nil {
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		value = string(b)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{MigrationAnnotation: value}}})
	if err != nil {
		return err
	}
	if _, err := c.Resource(Resource).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: MigrationFieldManager}); err != nil {
		return fmt.Errorf("crd: recording storage migration progress of %s: %w", name, err)
	}
	return nil
}

// dropStoredVersions sets the definition's status.storedVersions to the
// storage version alone, retrying on conflicts, and returns the versions
// it removed.
func dropStoredVersions(ctx context.Context, c *dynamic.Client, name, version string) ([]string, error) {
	crds := c.Resource(Resource)
	for attempt := 0; ; attempt++ {
		def, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		gvr, stored, err := storage(def)
		if err != nil {
			return nil, err
		}
		if gvr.Version != version {
			return nil, fmt.Errorf("%w: the storage version of %s changed from %s to %s during the migration", ErrMigration, name, version, gvr.Version)
		}
		var dropped []string
		for _, v := range stored {
			if v != version {
				dropped = append(dropped, v)
			}
		}
		if len(dropped) == 0 && slices.Contains(stored, version) {
			return nil, nil
		}
		if err := unstructured.SetNestedStringSlice(def.Object, []string{version}, "status", "storedVersions"); err != nil {
			return nil, err
		}
		_, err = crds.UpdateStatus(ctx, def, metav1.UpdateOptions{FieldManager: MigrationFieldManager})
		if err == nil {
			return dropped, nil
		}
		if !apierrors.IsConflict(err) || attempt >= 4 {
			return nil, fmt.Errorf("crd: updating status.storedVersions of %s: %w", name, err)
		}
	}
}

// Migrator is a manager.Runnable that migrates the storage of the named
// definitions (see MigrateStorage) whenever they need it: at start, and
// again every Interval, so that a storage version changed while the
// program runs (an upgrade of the definitions) is migrated too. A failed
// migration is logged and retried with backoff, resuming where it
// stopped. It needs leader election: one replica migrates.
type Migrator struct {
	// Client reads and writes the definitions and their objects.
	Client *dynamic.Client
	// Names are the definitions' names (<plural>.<group>).
	Names []string
	// Options configure each migration.
	Options MigrationOptions
	// Interval is the pause between two checks. Zero means ten minutes.
	Interval time.Duration
	// Done, if set, is called after each successful migration.
	Done func(MigrationResult)
}

// NeedLeaderElection reports true: two migrators would race on progress.
func (m *Migrator) NeedLeaderElection() bool { return true }

// Start migrates until ctx ends, then returns nil. It returns an error
// only for a Migrator without a Client.
func (m *Migrator) Start(ctx context.Context) error {
	if m.Client == nil {
		return fmt.Errorf("%w: Migrator without a Client", ErrMigration)
	}
	interval := m.Interval
	if interval <= 0 {
		interval = 10 * time.Minute
	}
	b := backoff.Backoff{Initial: time.Second, Max: 5 * time.Minute, Factor: 2, Jitter: 0.2}
	failures := 0
	for {
		wait := interval
		failed := false
		for _, name := range m.Names {
			res, err := MigrateStorage(ctx, m.Client, name, m.Options)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				failed = true
				m.Options.log().Error("storage migration failed; it resumes after a pause", "crd", name, "err", err)
				continue
			}
			if m.Done != nil && len(res.Dropped) > 0 {
				m.Done(res)
			}
		}
		if failed {
			failures++
			wait = b.Jittered(b.Delay(failures))
		} else {
			failures = 0
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// Permissions are the requests the Migrator makes, for
// manager.Manager.Permissions: get and patch of its definitions and
// update of their status, by name; and list, get and update of their
// objects in every namespace.
func (m *Migrator) Permissions() []rbac.Permission {
	if len(m.Names) == 0 {
		return nil
	}
	out := []rbac.Permission{
		{Group: Resource.Group, Resource: Resource.Resource, Verbs: []string{"get", "patch"}, Names: m.Names},
		{Group: Resource.Group, Resource: Resource.Resource + "/status", Verbs: []string{"update"}, Names: m.Names},
	}
	for _, name := range m.Names {
		plural, group, _ := strings.Cut(name, ".")
		out = append(out, rbac.Permission{Group: group, Resource: plural, Verbs: []string{"get", "list", "update"}})
	}
	return out
}
