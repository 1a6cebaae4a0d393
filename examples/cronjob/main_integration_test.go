package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The program as a user runs it, against kube-apiserver through a
// kubeconfig file: -install-crd makes CronJobs served, the controller
// reconciles one (its status gets the controller's conditions), the
// webhook server starts on the certificate directory given, and the
// program stops cleanly when its context ends.
func TestIntegrationProgramRuns(t *testing.T) {
	cp := testenv.Shared(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := cp.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(dir, "certs")
	if _, err := certs.Write(certDir, pair); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, kubegotest.Logger(t, nil), flags{kubeconfig: kubeconfig, certDir: certDir, webhookAddr: "127.0.0.1:0", installCRD: true}, io.Discard)
	}()

	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	v1.Register(reg)
	c := client.New(rc, client.Options{Registry: reg})
	ns, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cronjob-main-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cronJobs := client.Typed[*v1.CronJob](c).Namespace(ns.Name)
	cj := &v1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: v1.CronJobSpec{
			Schedule: "0 3 * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "registry.example/c:1"}},
			}}}},
		},
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := cronJobs.Create(ctx, cj, metav1.CreateOptions{}) // served once the program installed the CRD
		return err
	})
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		got, err := cronJobs.Get(ctx, cj.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(got.Status.Conditions) != 3 {
			return fmt.Errorf("conditions %v, want the controller's three", got.Status.Conditions)
		}
		return nil
	})
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("run did not return after its context ended")
	}
}
