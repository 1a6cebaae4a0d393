package crd_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/testenv"
)

// Crate is the resource whose storage version the tests change.
type Crate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CrateSpec `json:"spec"`
}

type CrateSpec struct {
	Size int32 `json:"size"`
}

// crateDefinition is the definition of Crates in group with the given
// versions, the last one stored.
func crateDefinition(t *testing.T, group string, versions ...string) *unstructured.Unstructured {
	t.Helper()
	d := crd.Definition{Group: group, Kind: "Crate"}
	for i, v := range versions {
		d.Versions = append(d.Versions, crd.Version{Name: v, Type: crd.TypeOf[Crate](), Storage: i == len(versions)-1})
	}
	def, err := crd.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// cancelAfter is a rate limiter that lets n writes through and then
// cancels the migration's context, as a restart would stop it.
type cancelAfter struct {
	n      int64
	seen   atomic.Int64
	cancel context.CancelFunc
}

func (l *cancelAfter) Wait(ctx context.Context) error {
	if l.seen.Add(1) > l.n && l.cancel != nil {
		l.cancel()
	}
	return ctx.Err()
}

// storedCrates writes n Crates in version v1 of group and switches the
// storage version to v2.
func storedCrates(t *testing.T, ctx context.Context, dc *dynamic.Client, group string, n int) (schema.GroupVersionResource, string) {
	t.Helper()
	name := "crates." + group
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{crateDefinition(t, group, "v2", "v1")}, crd.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Both versions back, so that every object reads again, then the
		// definition and its objects go.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		both := crateDefinition(t, group, "v1", "v2")
		unstructured.RemoveNestedField(both.Object, "status")
		_, _ = dc.Resource(crd.Resource).Apply(ctx, both, dynamic.ApplyOptions{FieldManager: crd.DefaultFieldManager, Force: true})
		_ = dc.Resource(crd.Resource).Delete(ctx, name, metav1.DeleteOptions{})
	})
	v1 := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "crates"}
	for i := range n {
		c := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": group + "/v1", "kind": "Crate",
			"metadata": map[string]any{"name": fmt.Sprintf("crate-%03d", i)},
			"spec":     map[string]any{"size": int64(i)},
		}}
		if _, err := dc.Resource(v1).Namespace("default").Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{crateDefinition(t, group, "v1", "v2")}, crd.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := storedVersions(t, ctx, dc, name); !slices.Equal(got, []string{"v1", "v2"}) {
		t.Fatalf("storedVersions after switching storage to v2 = %v, want [v1 v2]", got)
	}
	return schema.GroupVersionResource{Group: group, Version: "v2", Resource: "crates"}, name
}

func storedVersions(t *testing.T, ctx context.Context, dc *dynamic.Client, name string) []string {
	t.Helper()
	def, err := dc.Resource(crd.Resource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ := unstructured.NestedStringSlice(def.Object, "status", "storedVersions")
	slices.Sort(got)
	return got
}

func TestIntegrationStorageMigrationSurvivesARestartAndFreesTheOldVersion(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 230
	group := fmt.Sprintf("m%d.migrate.kubego.test", time.Now().UnixNano())
	v2, name := storedCrates(t, ctx, dc, group, n)

	// The first run stops in its third page, as a restart would stop it.
	first, stop := context.WithCancel(ctx)
	defer stop()
	res, err := crd.MigrateStorage(first, dc, name, crd.MigrationOptions{PageSize: 50, Limiter: &cancelAfter{n: 120, cancel: stop}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %+v, %v; want it stopped by its context", res, err)
	}
	if res.Rewritten != 120 {
		t.Errorf("first run rewrote %d objects before it stopped, want 120", res.Rewritten)
	}
	def, err := dc.Resource(crd.Resource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if def.GetAnnotations()[crd.MigrationAnnotation] == "" {
		t.Fatalf("no progress recorded in %s after two pages", crd.MigrationAnnotation)
	}

	// The second run resumes at the third page: the two pages done are not
	// read again.
	res, err = crd.MigrateStorage(ctx, dc, name, crd.MigrationOptions{PageSize: 50})
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	t.Logf("second run: %+v", res)
	if !res.Resumed {
		t.Error("the second run did not resume")
	}
	if got := res.Rewritten + res.Current + res.Gone; got != n-100 {
		t.Errorf("the second run visited %d objects, want the %d from the third page on", got, n-100)
	}
	if res.Current != 20 {
		t.Errorf("the second run found %d objects already moved, want the 20 the first run did in its third page", res.Current)
	}
	if !slices.Equal(res.Dropped, []string{"v1"}) {
		t.Errorf("dropped %v, want [v1]", res.Dropped)
	}
	if got := storedVersions(t, ctx, dc, name); !slices.Equal(got, []string{"v2"}) {
		t.Fatalf("storedVersions after the migration = %v, want [v2]", got)
	}
	def, err = dc.Resource(crd.Resource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := def.GetAnnotations()[crd.MigrationAnnotation]; ok {
		t.Errorf("progress annotation left after the migration: %q", a)
	}

	// A third run has nothing to do.
	res, err = crd.MigrateStorage(ctx, dc, name, crd.MigrationOptions{})
	if err != nil || res.Rewritten+res.Current != 0 || len(res.Dropped) != 0 {
		t.Errorf("third run: %+v, %v; want nothing done", res, err)
	}

	// v1 can now leave the definition, and every object reads in v2.
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{crateDefinition(t, group, "v2")}, crd.InstallOptions{}); err != nil {
		t.Fatalf("removing v1 from the definition: %v", err)
	}
	readAll(t, ctx, dc, v2, n)
}

// Without the migration, objects stored in a version the definition no
// longer has cannot be read: the failure the migration prevents.
func TestIntegrationWithoutStorageMigrationOldObjectsBecomeUnreadable(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	group := fmt.Sprintf("u%d.migrate.kubego.test", time.Now().UnixNano())
	v2, name := storedCrates(t, ctx, dc, group, 3)
	def, err := dc.Resource(crd.Resource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedStringSlice(def.Object, []string{"v2"}, "status", "storedVersions")
	if _, err := dc.Resource(crd.Resource).UpdateStatus(ctx, def, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Not Install: it waits until every served version lists, which
	// never happens now.
	only2 := crateDefinition(t, group, "v2")
	unstructured.RemoveNestedField(only2.Object, "status")
	if _, err := dc.Resource(crd.Resource).Apply(ctx, only2, dynamic.ApplyOptions{FieldManager: crd.DefaultFieldManager, Force: true}); err != nil {
		t.Fatal(err)
	}
	// The server's handler of the definition changes a moment after the
	// definition does: poll until it refuses the read.
	var readErr error
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, readErr = dc.Resource(v2).Namespace("default").Get(ctx, "crate-000", metav1.GetOptions{})
		if readErr == nil {
			return errors.New("an object stored in a removed version still reads")
		}
		return nil
	})
	if !strings.Contains(readErr.Error(), "invalid group/version") {
		t.Errorf("reading an object stored in a removed version: %v; want the server's conversion refusal", readErr)
	}
}

func readAll(t *testing.T, ctx context.Context, dc *dynamic.Client, gvr schema.GroupVersionResource, n int) {
	t.Helper()
	list, err := dc.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing in %s: %v", gvr.Version, err)
	}
	if len(list.Items) != n {
		t.Fatalf("listed %d objects, want %d", len(list.Items), n)
	}
	for _, o := range list.Items {
		if o.GetAPIVersion() != gvr.GroupVersion().String() {
			t.Fatalf("%s read as %s", o.GetName(), o.GetAPIVersion())
		}
	}
}
