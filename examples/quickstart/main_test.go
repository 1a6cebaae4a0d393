package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

func TestEveryDeploymentGetsItsConfigMap(t *testing.T) {
	srv := fake.NewServer(fake.Options{}) // an in-memory kube-apiserver
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config(), Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(mgr); err != nil {
		t.Fatal(err)
	}
	ctx := start(t, mgr)

	deps := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("default")
	dep, err := deps.Create(ctx, deployment("web", 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, replicasAre(mgr, "web", "2")) // polls until nil, fails with the last error

	dep.Spec.Replicas = new(int32(5))
	if _, err := deps.Update(ctx, dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, replicasAre(mgr, "web", "5"))

	cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
	if err := cms.Delete(ctx, "web-replicas", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, replicasAre(mgr, "web", "5")) // recreated
}

// start runs mgr until the test ends and fails the test if it returns an
// error; the context it returns ends with the test or after a minute.
func start(t *testing.T, mgr *manager.Manager) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return ctx
}

// replicasAre checks the ConfigMap of the Deployment name: its data and
// its owner.
func replicasAre(mgr *manager.Manager, name, want string) func(context.Context) error {
	cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
	return func(ctx context.Context) error {
		cm, err := cms.Get(ctx, name+"-replicas", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := cm.Data["replicas"]; got != want {
			return fmt.Errorf("replicas %q, want %q", got, want)
		}
		if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != name {
			return fmt.Errorf("owner references %v, want the Deployment %s", cm.OwnerReferences, name)
		}
		return nil
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
