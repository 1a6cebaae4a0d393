package foos_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
)

// run checks the controller's behaviour against the API server of cfg,
// in a namespace of its own: the same steps on the fake and on a real
// kube-apiserver. Nothing runs kube-controller-manager, so the test writes
// the Deployment status a real cluster's Deployment controller would.
func run(t *testing.T, cfg *rest.Config, ns string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	reg := client.NewRegistry()
	foos.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cfg, Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.Client()
	if err := foos.Install(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := foos.Setup(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	fooClient := client.Typed[*foos.Foo](c).Namespace(ns)
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	three := int32(3)

	foo, err := fooClient.Create(ctx, newFoo("example", "example-web", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var dep *appsv1.Deployment
	waitDeployment := func(what string, ok func(*appsv1.Deployment) error) {
		t.Helper()
		kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
			d, err := deps.Get(ctx, "example-web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if err := ok(d); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			dep = d
			return nil
		})
	}
	waitDeployment("created", func(d *appsv1.Deployment) error {
		if !metav1.IsControlledBy(d, foo) {
			return fmt.Errorf("owners %v, want Foo %s as controller", d.OwnerReferences, foo.UID)
		}
		return replicas(d, 1)
	})
	waitEvent(ctx, t, c, foo, foos.ReasonSynced)

	// Replicas follow the Foo.
	if _, err := fooClient.Patch(ctx, "example", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDeployment("scaled", func(d *appsv1.Deployment) error { return replicas(d, 3) })

	// The Deployment's available replicas reach the Foo's status.
	st := fmt.Sprintf(`{"status":{"observedGeneration":%d,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`, dep.Generation)
	if _, err := deps.Patch(ctx, "example-web", types.MergePatchType, []byte(st), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		f, err := fooClient.Get(ctx, "example", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if f.Status.AvailableReplicas != three {
			return fmt.Errorf("status.availableReplicas %d, want 3", f.Status.AvailableReplicas)
		}
		return nil
	})

	// A deleted Deployment is created again.
	old := dep.UID
	if err := deps.Delete(ctx, "example-web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDeployment("recreated", func(d *appsv1.Deployment) error {
		if d.UID == old {
			return errors.New("still the deleted one")
		}
		return replicas(d, 3)
	})

	// A Foo without a deployment name is refused with an Event.
	bad, err := fooClient.Create(ctx, newFoo("nameless", "", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(ctx, t, c, bad, foos.ReasonInvalidSpec)

	// Someone else's Deployment is never taken over.
	theirs := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "theirs"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &three,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "theirs"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app:1"}}},
			},
		},
	}
	if _, err := deps.Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	taker, err := fooClient.Create(ctx, newFoo("taker", "theirs", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(ctx, t, c, taker, foos.ReasonResourceExists)
	d, err := deps.Get(ctx, "theirs", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.OwnerReferences) != 0 || *d.Spec.Replicas != 3 {
		t.Errorf("someone else's Deployment was changed: owners %v, replicas %d", d.OwnerReferences, *d.Spec.Replicas)
	}
}

func newFoo(name, deployment string, n int32) *foos.Foo {
	return &foos.Foo{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: foos.Spec{DeploymentName: deployment, Replicas: &n}}
}

func replicas(d *appsv1.Deployment, want int32) error {
	if d.Spec.Replicas == nil || *d.Spec.Replicas != want {
		return fmt.Errorf("spec.replicas %v, want %d", d.Spec.Replicas, want)
	}
	return nil
}

// waitEvent waits for an Event with reason about foo, in both the
// events.k8s.io/v1 and the core/v1 view.
func waitEvent(ctx context.Context, t *testing.T, c *client.Client, foo *foos.Foo, reason string) {
	t.Helper()
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		evs, err := kubegotest.Events(ctx, c, foo)
		if err != nil {
			return err
		}
		core, err := kubegotest.CoreEvents(ctx, c, foo)
		if err != nil {
			return err
		}
		inEvents := slices.ContainsFunc(evs, func(ev eventsv1.Event) bool { return ev.Reason == reason })
		inCore := slices.ContainsFunc(core, func(ev corev1.Event) bool { return ev.Reason == reason })
		if !inEvents || !inCore {
			return fmt.Errorf("no %s Event about Foo %s in both views (events.k8s.io/v1: %v, core/v1: %v)", reason, foo.Name, inEvents, inCore)
		}
		return nil
	})
}
