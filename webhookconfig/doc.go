// Package webhookconfig is the cluster side of a webhook server
// (package webhook): the webhook configurations made from the handlers it
// serves, its serving certificate provisioned without cert-manager, and
// the caBundle of its configurations kept up to date.
//
// # Webhook configurations from the handlers
//
// A Set registers each handler once, with its path and what it admits;
// the handler is mounted on the server at once, and Set.Configurations
// makes the admissionregistration.k8s.io/v1 configurations that send
// kube-apiserver's requests there:
//
//	set := webhookconfig.NewSet("widgets", srv)
//	webhookconfig.Default[Widget](set, "/default-widgets", defaults, webhookconfig.Admission{})
//	webhookconfig.Validate[Widget](set, "/validate-widgets", rules, webhookconfig.Admission{
//		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
//	})
//	webhookconfig.Convert[Widget](set, "/convert-widgets", conv)
//	cfgs, err := set.Configurations(ctx, cli, webhookconfig.Target{
//		Service: &admissionregistrationv1.ServiceReference{Namespace: "widgets-system", Name: "widgets-webhook"},
//	})
//
// The rules name the resource of the handler's Go type, as the client
// maps it (its Registry, the built-in kinds, or discovery); the options
// (webhookconfig.Admission) give operations, failure policy, side
// effects, timeout, match conditions and selectors. In a cluster the
// Target is the Service in front of the server; in tests and out of a
// cluster it is a URL (testenv's kube-apiserver reaches loopback only:
// testenv.ControlPlane.InstallWebhookConfigurations takes the same
// Configurations). The CRD conversion webhooks come out as Conversions:
// the clientConfig to set in each CRD's spec.conversion.webhook.
//
// # Serving certificates without cert-manager
//
// Certificates keeps a CA in a Secret (kubernetes.io/tls, labelled
// ManagedLabel; created when absent, and when two replicas create it at
// once the loser reads the winner's), and each replica signs itself a
// serving certificate for the Service's names, held in memory and given
// to the server through webhook.Options.GetCertificate:
//
//	certs, err := webhookconfig.NewCertificates(cli, webhookconfig.CertificatesOptions{
//		Namespace: "widgets-system", Service: "widgets-webhook",
//	})
//	srv, err := webhook.New(webhook.Options{GetCertificate: certs.GetCertificate})
//	mgr.Add(certs)
//	mgr.Add(srv)
//
// Serving certificates are renewed when two thirds of their life passed.
// The CA is rotated with an overlap, so that kube-apiserver trusts every
// certificate it is shown: a next CA joins the bundle when the signing one
// has a third of its life left, signs once it has been trusted for
// CertificatesOptions.Propagation (and the signing one has a sixth left),
// and the previous CA leaves the bundle when it expires — and with it the
// last certificate it signed, since each replica renews its certificate
// as soon as it sees the new signer. Every write to the Secret is a
// conditional update, so replicas racing to rotate agree on one outcome.
//
// A program whose certificates come from cert-manager keeps reading them
// from files (webhook.Options.CertFile and KeyFile, reloaded when they
// change) and lets cert-manager's CA injector keep the caBundles.
//
// # Keeping the caBundle
//
// A BundleUpdater patches the caBundle of the named Mutating- and
// ValidatingWebhookConfigurations and of the CRDs' conversion webhooks
// (spec.conversion.webhook.clientConfig.caBundle) whenever it differs from
// its source's bundle: at once when Certificates changes the bundle, and
// every Resync. It needs leader election (one writer).
package webhookconfig
