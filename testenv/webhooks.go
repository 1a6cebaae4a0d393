package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
)

// fieldManager is the server-side apply manager of what testenv installs.
const fieldManager = "kubego-testenv"

// ErrInvalidWebhook is wrapped by InstallWebhooks' error for a
// registration that cannot work (no URL, no CA bundle, a webhook without a
// name, path or rules).
var ErrInvalidWebhook = errors.New("testenv: invalid webhook registration")

// Webhooks registers admission webhooks served by one HTTPS server that
// kube-apiserver reaches on loopback (a webhook.Server on 127.0.0.1).
type Webhooks struct {
	// Name names the ValidatingWebhookConfiguration and the
	// MutatingWebhookConfiguration made (when there are webhooks of each
	// kind).
	Name string
	// URL is the server's base URL, "https://127.0.0.1:<port>".
	URL string
	// CABundle is the PEM of the CA that signed the server's certificate.
	CABundle []byte
	// Validating and Mutating are the webhooks, each served at URL+Path.
	Validating []AdmissionWebhook
	Mutating   []AdmissionWebhook
}

// AdmissionWebhook is one webhook of a configuration. Zero values pick
// kube-apiserver's usual choices, except FailurePolicy: Fail.
type AdmissionWebhook struct {
	// Name is the webhook's name, a qualified name with at least three
	// segments ("validate.widgets.example.com"); kube-apiserver's denials
	// quote it.
	Name string
	// Path on the server ("/validate-widgets").
	Path string
	// Rules say which operations on which resources are sent.
	Rules []admissionregistrationv1.RuleWithOperations
	// FailurePolicy decides what a failed call means; empty is Fail.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds bounds each call (1 to 30); zero is kube-apiserver's
	// default of 10.
	TimeoutSeconds int32
	// NamespaceSelector limits the webhook to matching namespaces; nil
	// matches all.
	NamespaceSelector *metav1.LabelSelector
}

func (w *Webhooks) validate() error {
	if w.Name == "" || !strings.HasPrefix(w.URL, "https://") || len(w.CABundle) == 0 {
		return fmt.Errorf("%w: Name, an https URL and CABundle are required", ErrInvalidWebhook)
	}
	for _, h := range append(append([]AdmissionWebhook(nil), w.Validating...), w.Mutating...) {
		if h.Name == "" || !strings.HasPrefix(h.Path, "/") || len(h.Rules) == 0 {
			return fmt.Errorf("%w: webhook %q needs a name, a path starting with / and rules", ErrInvalidWebhook, h.Name)
		}
	}
	if len(w.Validating)+len(w.Mutating) == 0 {
		return fmt.Errorf("%w: no webhooks", ErrInvalidWebhook)
	}
	return nil
}

func (w *Webhooks) clientConfig(h AdmissionWebhook) admissionregistrationv1.WebhookClientConfig {
	url := strings.TrimSuffix(w.URL, "/") + h.Path
	return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: w.CABundle}
}

func (h AdmissionWebhook) common() (*admissionregistrationv1.FailurePolicyType, *int32, *admissionregistrationv1.SideEffectClass) {
	fp := h.FailurePolicy
	if fp == "" {
		fp = admissionregistrationv1.Fail
	}
	var timeout *int32
	if h.TimeoutSeconds != 0 {
		t := h.TimeoutSeconds
		timeout = &t
	}
	se := admissionregistrationv1.SideEffectClassNone
	return &fp, timeout, &se
}

// InstallWebhooks creates or updates (server-side apply) the webhook
// configurations w describes. kube-apiserver starts calling the webhooks
// shortly after, typically within a second: a test that needs them should
// retry until it sees their effect. UninstallWebhooks removes them.
func (cp *ControlPlane) InstallWebhooks(ctx context.Context, w Webhooks) error {
	if err := w.validate(); err != nil {
		return err
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	if len(w.Validating) > 0 {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: w.Name}}
		cfg.APIVersion, cfg.Kind = "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"
		for _, h := range w.Validating {
			fp, timeout, se := h.common()
			cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.ValidatingWebhook{
				Name: h.Name, ClientConfig: w.clientConfig(h), Rules: h.Rules,
				FailurePolicy: fp, TimeoutSeconds: timeout, SideEffects: se,
				NamespaceSelector: h.NamespaceSelector, AdmissionReviewVersions: []string{"v1"},
			})
		}
		if err := apply(ctx, rc, "validatingwebhookconfigurations", w.Name, cfg); err != nil {
			return err
		}
	}
	if len(w.Mutating) > 0 {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: w.Name}}
		cfg.APIVersion, cfg.Kind = "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"
		for _, h := range w.Mutating {
			fp, timeout, se := h.common()
			cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.MutatingWebhook{
				Name: h.Name, ClientConfig: w.clientConfig(h), Rules: h.Rules,
				FailurePolicy: fp, TimeoutSeconds: timeout, SideEffects: se,
				NamespaceSelector: h.NamespaceSelector, AdmissionReviewVersions: []string{"v1"},
			})
		}
		if err := apply(ctx, rc, "mutatingwebhookconfigurations", w.Name, cfg); err != nil {
			return err
		}
	}
	return nil
}

// UninstallWebhooks deletes the validating and mutating webhook
// configurations named name; missing ones are not an error.
func (cp *ControlPlane) UninstallWebhooks(ctx context.Context, name string) error {
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	var errs []error
	for _, res := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
		err := rc.Delete().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Name(name).Do(ctx).Error()
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("testenv: deleting %s %s: %w", res, name, err))
		}
	}
	return errors.Join(errs...)
}

// InstallConversionWebhook sets the conversion of the CustomResourceDefinition
// named crd (already installed, with two or more versions) to strategy
// Webhook, calling url (the full URL, path included) with ConversionReview v1
// and trusting caBundle. kube-apiserver uses it for the next request that
// needs a conversion, typically within a second.
func (cp *ControlPlane) InstallConversionWebhook(ctx context.Context, crd, url string, caBundle []byte) error {
	if crd == "" || !strings.HasPrefix(url, "https://") || len(caBundle) == 0 {
		return fmt.Errorf("%w: a CRD name, an https URL and a CA bundle are required", ErrInvalidWebhook)
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	patch := map[string]any{
		"spec": map[string]any{"conversion": map[string]any{
			"strategy": "Webhook",
			"webhook": map[string]any{
				"conversionReviewVersions": []string{"v1"},
				"clientConfig":             map[string]any{"url": url, "caBundle": caBundle},
			},
		}},
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	err = rc.Patch(types.MergePatchType).Group("apiextensions.k8s.io").Version("v1").
		Resource("customresourcedefinitions").Name(crd).Body(data).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("testenv: setting the conversion webhook of CRD %s: %w", crd, err)
	}
	return nil
}

// apply creates or updates obj by server-side apply.
func apply(ctx context.Context, rc *rest.Client, resource, name string, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("testenv: encoding %s %s: %w", resource, name, err)
	}
	err = rc.Patch(types.ApplyPatchType).Group("admissionregistration.k8s.io").Version("v1").Resource(resource).Name(name).
		Param("fieldManager", fieldManager).Param("force", "true").Body(data).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("testenv: applying %s %s: %w", resource, name, err)
	}
	return nil
}
