package main

import (
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

func TestEveryDeploymentGetsItsConfigMap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: nothing waits on the wall clock
		srv := fake.NewServer(fake.Options{}) // an in-memory API server, served in this process
		defer srv.Close()
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ctrl, err := Setup(mgr)
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, mgr) // runs until the test ends; its error fails the test

		deps := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("default")
		dep, err := deps.Create(t.Context(), deployment("web", 2), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Settle(t, ctrl) // every event handled, every reconcile done
		replicasAre(t, mgr, "web", "2")

		dep.Spec.Replicas = new(int32(5))
		if _, err := deps.Update(t.Context(), dep, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		kubegotest.Settle(t, ctrl)
		replicasAre(t, mgr, "web", "5")

		cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
		if err := cms.Delete(t.Context(), "web-replicas", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		kubegotest.Settle(t, ctrl)
		replicasAre(t, mgr, "web", "5") // recreated
	})
}

// replicasAre checks the ConfigMap of the Deployment name: its data and
// its owner.
func replicasAre(t *testing.T, mgr *manager.Manager, name, want string) {
	t.Helper()
	cm, err := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default").Get(t.Context(), name+"-replicas", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cm.Data["replicas"]; got != want {
		t.Errorf("replicas %q, want %q", got, want)
	}
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != name {
		t.Errorf("owner references %v, want the Deployment %s", cm.OwnerReferences, name)
	}
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx"}}},
			},
		},
	}
}
