package objects_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/objects"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// realClient returns a client of the shared control plane and a fresh
// namespace, deleted at cleanup.
func realClient(t *testing.T) (*client.Client, string, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	cp := testenv.Shared(t)
	c, err := client.NewForConfig(cp.Config(), client.Options{FieldManager: "objects-test"})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "objects-" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	nss := client.Typed[*corev1.Namespace](c)
	if _, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nss.Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return c, ns, ctx
}

func webDeployment(ns string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
	}
}

func TestIntegrationControllerReferenceOnTheServer(t *testing.T) {
	c, ns, ctx := realClient(t)
	owner, err := client.Typed[*appsv1.Deployment](c).Create(ctx, webDeployment(ns, 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	cm, res, err := objects.CreateOrUpdate(ctx, cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config"}}, func(cm *corev1.ConfigMap) error {
		cm.Data = map[string]string{"replicas": "1"}
		return objects.SetControllerReference(owner, cm, c)
	})
	if err != nil || res != objects.Created {
		t.Fatalf("CreateOrUpdate = %s, %v", res, err)
	}
	ref := metav1.GetControllerOf(cm)
	if ref == nil || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.UID != owner.UID || !*ref.BlockOwnerDeletion {
		t.Fatalf("stored controller reference %+v", ref)
	}
	// A second run changes nothing and writes nothing.
	if _, res, err = objects.CreateOrUpdate(ctx, cms, cm, func(cm *corev1.ConfigMap) error {
		cm.Data = map[string]string{"replicas": "1"}
		return objects.SetControllerReference(owner, cm, c)
	}); err != nil || res != objects.Unchanged {
		t.Fatalf("second CreateOrUpdate = %s, %v; want unchanged", res, err)
	}
	// Another controller cannot take the object over.
	other := owner.DeepCopy()
	other.Name, other.UID = "other", types.UID("5f0c2b53-0000-4000-8000-000000000000")
	if err := objects.SetControllerReference(other, cm, c); !errors.As(err, new(*objects.AlreadyOwnedError)) {
		t.Fatalf("SetControllerReference with another owner = %v, want *AlreadyOwnedError", err)
	}
}

func TestIntegrationPatchStatusFromAStaleCopy(t *testing.T) {
	c, ns, ctx := realClient(t)
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	d, err := deps.Create(ctx, webDeployment(ns, 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := d.DeepCopy()
	d.Labels = map[string]string{"touched": "yes"}
	if _, err := deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := stale.DeepCopy()
	next.Status.ObservedGeneration = 42
	if _, err := deps.UpdateStatus(ctx, next, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("UpdateStatus from a stale copy = %v; the test needs a conflict", err)
	}
	got, err := objects.PatchStatus(ctx, deps, stale, next, objects.PatchOptions{})
	if err != nil {
		t.Fatalf("PatchStatus: %v", err)
	}
	if got.Status.ObservedGeneration != 42 || got.Labels["touched"] != "yes" {
		t.Errorf("after PatchStatus: observedGeneration %d, labels %v", got.Status.ObservedGeneration, got.Labels)
	}
	next.Status.ObservedGeneration = 43
	if _, err := objects.PatchStatus(ctx, deps, stale, next, objects.PatchOptions{OptimisticLock: true}); !apierrors.IsConflict(err) {
		t.Errorf("PatchStatus with OptimisticLock from a stale copy = %v, want a conflict", err)
	}
	// Patch sends the spec side only.
	fresh := got.DeepCopy()
	three := int32(3)
	fresh.Spec.Replicas = &three
	fresh.Status.ObservedGeneration = 99 // not sent by Patch
	got, err = objects.Patch(ctx, deps, got, fresh, objects.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 3 || got.Status.ObservedGeneration != 42 {
		t.Errorf("after Patch: replicas %d, observedGeneration %d; want 3 and 42", *got.Spec.Replicas, got.Status.ObservedGeneration)
	}
	if mf := managerNames(got); !mf["objects-test"] || len(mf) != 1 {
		t.Errorf("managedFields managers %v, want only the client's field manager", mf)
	}
}

func TestIntegrationCreateOrPatchAndFinalizers(t *testing.T) {
	c, ns, ctx := realClient(t)
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	const fin = "example.com/cleanup"
	set := func(replicas int32, observed int64, finalizer bool) func(*appsv1.Deployment) error {
		return func(d *appsv1.Deployment) error {
			if d.Spec.Selector == nil { // new: the rest of the spec too
				d.Spec = webDeployment(ns, replicas).Spec
			}
			d.Spec.Replicas = &replicas // only the fields this code owns
			d.Status.ObservedGeneration = observed
			if finalizer {
				objects.AddFinalizer(d, fin)
			} else {
				objects.RemoveFinalizer(d, fin)
			}
			return nil
		}
	}
	key := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	for _, st := range []struct {
		name   string
		mutate func(*appsv1.Deployment) error
		want   objects.Result
	}{
		{"created with a finalizer", set(1, 0, true), objects.Created},
		{"unchanged", set(1, 0, true), objects.Unchanged},
		{"spec and status patched", set(2, 5, true), objects.Updated},
	} {
		if _, res, err := objects.CreateOrPatch(ctx, deps, key, st.mutate); err != nil || res != st.want {
			t.Fatalf("%s: CreateOrPatch = %s, %v; want %s", st.name, res, err, st.want)
		}
	}
	got, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 2 || got.Status.ObservedGeneration != 5 || !objects.HasFinalizer(got, fin) {
		t.Fatalf("stored: replicas %d, observedGeneration %d, finalizers %v", *got.Spec.Replicas, got.Status.ObservedGeneration, got.Finalizers)
	}
	// The finalizer holds the object after a delete until it is removed.
	if err := deps.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err = deps.Get(ctx, "web", metav1.GetOptions{}); err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("after delete: %v, deletionTimestamp %v", err, got)
	}
	if _, _, err := objects.CreateOrPatch(ctx, deps, key, set(2, 5, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after removing the finalizer: %v, want NotFound", err)
	}
}

func managerNames(obj metav1.Object) map[string]bool {
	out := map[string]bool{}
	for _, mf := range obj.GetManagedFields() {
		out[mf.Manager] = true
	}
	return out
}
