package webhookconfig_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhookconfig"
)

// A validating webhook registered once: mounted on the server, and made
// into the ValidatingWebhookConfiguration that sends the Service's path
// every create and update of ConfigMaps.
func ExampleSet() {
	mux := http.NewServeMux() // a *webhook.Server in a program
	set := webhookconfig.NewSet("settings", mux)
	webhookconfig.Validate[corev1.ConfigMap](set, "/validate-configmaps", admission.ValidatorFuncs[*corev1.ConfigMap]{
		Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			if cm.Data["owner"] == "" {
				return nil, errors.New("data.owner is required")
			}
			return nil, nil
		},
	}, webhookconfig.Admission{})

	rc, _ := rest.NewClient(&rest.Config{Host: "https://unused.example"}) // maps built-in kinds offline
	cfgs, err := set.Configurations(context.Background(), client.New(rc, client.Options{}), webhookconfig.Target{
		Service: &admissionregistrationv1.ServiceReference{Namespace: "settings-system", Name: "settings-webhook"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	w := cfgs.Validating.Webhooks[0]
	fmt.Println(cfgs.Validating.Name, w.Name)
	fmt.Println(w.Rules[0].Operations, w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources, *w.FailurePolicy)
	fmt.Println(w.ClientConfig.Service.Namespace, w.ClientConfig.Service.Name, *w.ClientConfig.Service.Path, *w.ClientConfig.Service.Port)
	// Output:
	// settings validate-configmaps.settings.kubego.io
	// [CREATE UPDATE] [] [v1] [configmaps] Fail
	// settings-system settings-webhook /validate-configmaps 443
}

// Certificates provisions the CA Secret and a serving certificate for the
// Service's names; its GetCertificate goes to webhook.Options and its
// Bundle to a BundleUpdater.
func ExampleCertificates() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	rc, _ := rest.NewClient(srv.InProcessConfig())
	cli := client.New(rc, client.Options{})

	p, err := webhookconfig.NewCertificates(cli, webhookconfig.CertificatesOptions{
		Namespace: "default", Service: "settings-webhook",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, changed := p.Bundle()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Start(ctx) }()
	<-changed // the first bundle, read from the Secret: a certificate too
	cert, err := p.GetCertificate(nil)
	if err != nil {
		fmt.Println(err)
	} else {
		fmt.Println(cert.Leaf.DNSNames)
	}
	cancel()
	fmt.Println(<-done)
	// Output:
	// [settings-webhook settings-webhook.default settings-webhook.default.svc settings-webhook.default.svc.cluster.local]
	// <nil>
}
