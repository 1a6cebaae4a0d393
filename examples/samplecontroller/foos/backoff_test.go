package foos_test

import (
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

// A Foo naming someone else's Deployment is retried with growing backoff
// (the default rate limiter's, up to 1000 s); once that Deployment is
// gone, the next retry creates the Foo's own. Nothing else enqueues the
// Foo: an unowned Deployment's deletion is no event for it. Hours of fake
// time, in a synctest bubble, through the in-process fake.
func TestFooRetriesWithBackoffUntilTheNameIsFree(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
		defer srv.Close()
		reg := client.NewRegistry()
		foos.Register(reg)
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		if err := foos.Install(ctx, mgr.Client()); err != nil {
			t.Fatal(err)
		}
		ctrl, err := foos.Setup(mgr)
		if err != nil {
			t.Fatal(err)
		}
		deps := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("ns")
		theirs := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "theirs"},
			Spec: appsv1.DeploymentSpec{
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
		kubegotest.Start(t, mgr)
		taker, err := client.Typed[*foos.Foo](mgr.Client()).Namespace("ns").Create(ctx, newFoo("taker", "theirs", 2), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}

		// Three hours of retries: the backoff reaches its cap and stays
		// there; the Deployment is left alone all along.
		time.Sleep(3 * time.Hour)
		kubegotest.Settle(t, ctrl)
		d, err := deps.Get(ctx, "theirs", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.OwnerReferences) != 0 {
			t.Fatalf("someone else's Deployment was taken over: owners %v", d.OwnerReferences)
		}

		// The name is freed: the next retry, at most one capped delay
		// later, creates the Foo's Deployment.
		if err := deps.Delete(ctx, "theirs", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		freed := time.Now()
		const maxBackoff = 1000 * time.Second
		time.Sleep(maxBackoff + time.Second)
		kubegotest.Settle(t, ctrl)
		d, err = deps.Get(ctx, "theirs", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("no Deployment one capped backoff after the name was freed: %v", err)
		}
		if !metav1.IsControlledBy(d, taker) {
			t.Fatalf("the new Deployment's owners are %v, want Foo taker", d.OwnerReferences)
		}
		// Fake time: the creation time is exact arithmetic on the backoff.
		if after := d.CreationTimestamp.Sub(freed); after < 0 || after > maxBackoff {
			t.Errorf("created %s after the name was freed, want within the capped backoff %s", after, maxBackoff)
		}
		t.Logf("created %s of fake time after the name was freed", d.CreationTimestamp.Sub(freed))
	})
	t.Logf("real time taken: %s", time.Since(realStart))
}
