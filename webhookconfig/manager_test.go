package webhookconfig_test

import (
	"context"
	"errors"
	"net"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhookconfig"
)

// The three pieces in a Manager, against the fake over HTTPS: the fake
// calls the webhooks as kube-apiserver does, trusting only the caBundle
// the BundleUpdater wrote into the configurations it was given (installed
// without one), so a defaulted object proves the whole loop.
func TestManagerRunsCertificatesServerAndBundleUpdater(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	t.Cleanup(srv.Close)
	mgr, err := manager.New(manager.Options{Config: srv.Config(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	provisioner, err := webhookconfig.NewCertificates(mgr.Client(), webhookconfig.CertificatesOptions{
		Namespace: "default", Service: "labels-webhook", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, Logger: quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server, err := webhook.New(webhook.Options{Listener: ln, GetCertificate: provisioner.GetCertificate, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	set := webhookconfig.NewSet("labels", server)
	webhookconfig.Default[corev1.ConfigMap](set, "/default", admission.DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, cm *corev1.ConfigMap) error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["defaulted"] = "true"
		return nil
	}), webhookconfig.Admission{})
	cfgs, err := set.Configurations(ctx, mgr.Client(), webhookconfig.Target{URL: "https://" + ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](mgr.Client()).Create(ctx, cfgs.Mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	updater, err := webhookconfig.NewBundleUpdater(mgr.Client(), provisioner, webhookconfig.BundleOptions{Mutating: []string{set.Name()}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []manager.Runnable{provisioner, server, updater} {
		if err := mgr.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	mgr.AddReadyzCheck("webhook", server.ReadyCheck)
	kubegotest.Start(t, mgr)

	cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("default")
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "c-"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		if cm.Labels["defaulted"] != "true" {
			return errors.New("not defaulted")
		}
		return nil
	})
	if err := server.ReadyCheck(nil); err != nil {
		t.Fatalf("ReadyCheck: %v", err)
	}
}
