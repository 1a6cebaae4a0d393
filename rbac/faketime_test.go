package rbac_test

import (
	"slices"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
)

// The same workflow in a unit test: a Manager on the in-process fake,
// recorded, its run checked against the rules derived from it.
func TestDerivedRulesCoverARunOnFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ns = "shop"
		d := deployment("d0")
		d.Namespace = ns
		srv := fake.NewServer(fake.Options{}, d, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c0"}})
		defer srv.Close()
		cfg := srv.InProcessConfig()
		var rec rbac.Recorder
		rec.Wrap(cfg)
		mgr, err := manager.New(manager.Options{
			Config:         cfg,
			LeaderElection: &leaderelection.Config{Lock: types.NamespacedName{Namespace: ns, Name: "operator"}, ReleaseOnCancel: true},
			Logger:         kubegotest.Logger(t, nil),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := labeler.Setup(mgr, labeler.Options{Namespace: ns}); err != nil {
			t.Fatal(err)
		}
		if err := setupNoter(mgr, ns); err != nil {
			t.Fatal(err)
		}
		perms, err := mgr.Permissions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		m, err := rbac.Derive(perms, rbac.Options{ServiceAccount: types.NamespacedName{Namespace: ns, Name: "operator"}})
		if err != nil {
			t.Fatal(err)
		}
		run := kubegotest.Start(t, mgr)
		<-mgr.Elected()
		kubegotest.Settle(t)
		if err := run.Stop(); err != nil {
			t.Fatal(err)
		}
		// Read with a client of its own: the Manager's is recorded.
		admin, err := client.NewForConfig(srv.InProcessConfig(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := client.Typed[*appsv1.Deployment](admin).Namespace(ns).Get(t.Context(), "d0", metav1.GetOptions{})
		if err != nil || got.Labels[labeler.Label] != "labeler" {
			t.Fatalf("deployment labels %v, %v: the labeler did not run", got.GetLabels(), err)
		}

		unused, err := rbac.Check(m, rec.Requests())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, u := range unused {
			names = append(names, u.String())
		}
		// As on kube-apiserver: lists are the fallback of a watch that
		// cannot stream, and an Event is patched only when it repeats.
		want := []string{
			"Role shop/operator: list configmaps",
			"Role shop/operator: list deployments.apps",
			"Role shop/operator: patch events.events.k8s.io",
		}
		if !slices.Equal(names, want) {
			t.Fatalf("unused %q, want %q", names, want)
		}
	})
}
