package webhookconfig

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubego/kubego/client"
)

// Target is where kube-apiserver reaches the webhook server: a Service in
// the cluster, or a URL. Exactly one of Service and URL is set.
type Target struct {
	// Service is the Service in front of the server, in a cluster:
	// kube-apiserver calls https://<name>.<namespace>.svc:<port><path>.
	// Its Port nil means 443; its Path must be empty (each webhook has
	// the path it was registered with). install.Operator.WebhookService
	// returns one.
	Service *admissionregistrationv1.ServiceReference
	// URL is the server's base URL, "https://host:port", for a server
	// outside the cluster or a test's server on loopback; each webhook's
	// path is appended.
	URL string
	// CABundle is the PEM of the CAs kube-apiserver trusts for the
	// server; it may be empty when a BundleUpdater fills it in.
	CABundle []byte
}

// Configurations are the objects a Set makes: nil Mutating or Validating
// when the Set has no webhook of that kind.
type Configurations struct {
	Mutating   *admissionregistrationv1.MutatingWebhookConfiguration
	Validating *admissionregistrationv1.ValidatingWebhookConfiguration
	// Conversions are the conversion webhooks of CustomResourceDefinitions.
	Conversions []Conversion
}

// Conversion is the conversion webhook of one CustomResourceDefinition:
// its spec.conversion becomes strategy Webhook with this clientConfig
// (apiextensions.k8s.io/v1's WebhookClientConfig has the same fields as
// admissionregistration.k8s.io/v1's) and conversionReviewVersions [v1].
type Conversion struct {
	// CRD is the CustomResourceDefinition's name, <plural>.<group>.
	CRD          string
	ClientConfig admissionregistrationv1.WebhookClientConfig
}

// Configurations makes the webhook configurations of the Set's
// registrations pointing at t. Each handler's Go type is mapped to its
// resource by c (its Registry, the built-in kinds, or discovery), which
// is the only use of c. It returns an error wrapping ErrInvalidWebhook for
// a registration that cannot make a configuration, or the client's error
// for a type it cannot map.
func (s *Set) Configurations(ctx context.Context, c *client.Client, t Target) (*Configurations, error) {
	if errs := validation.IsDNS1123Subdomain(s.name); len(errs) > 0 {
		return nil, fmt.Errorf("%w: Set name %q: %s", ErrInvalidWebhook, s.name, strings.Join(errs, "; "))
	}
	if (t.Service == nil) == (t.URL == "") {
		return nil, fmt.Errorf("%w: the Target needs a Service or a URL, not both", ErrInvalidWebhook)
	}
	if t.URL != "" && !strings.HasPrefix(t.URL, "https://") {
		return nil, fmt.Errorf("%w: the Target URL %q is not https", ErrInvalidWebhook, t.URL)
	}
	if t.Service != nil && (t.Service.Namespace == "" || t.Service.Name == "" || t.Service.Path != nil) {
		return nil, fmt.Errorf("%w: the Target Service needs a namespace and a name, and no path", ErrInvalidWebhook)
	}
	regs, convs := s.registrations()
	if len(regs)+len(convs) == 0 {
		return nil, fmt.Errorf("%w: Set %s has no webhooks", ErrInvalidWebhook, s.name)
	}
	out := &Configurations{}
	paths := map[string]bool{}
	names := map[string]bool{}
	for _, r := range regs {
		if err := checkPath(r.path, paths); err != nil {
			return nil, err
		}
		m, err := r.resolve(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("webhookconfig: the resource of the %s: %w", r, err)
		}
		name := r.opts.Name
		if name == "" {
			name = strings.ReplaceAll(strings.Trim(r.path, "/"), "/", "-") + "." + s.name + ".kubego.io"
		}
		if errs := validation.IsFullyQualifiedName(nil, name); len(errs) > 0 {
			return nil, fmt.Errorf("%w: the name %q of the %s: %s", ErrInvalidWebhook, name, r, errs.ToAggregate())
		}
		if names[name] {
			return nil, fmt.Errorf("%w: two webhooks named %q", ErrInvalidWebhook, name)
		}
		names[name] = true
		ops := r.opts.Operations
		if ops == nil {
			ops = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
		}
		resources := []string{m.Resource.Resource}
		for _, sub := range r.opts.Subresources {
			resources = append(resources, m.Resource.Resource+"/"+sub)
		}
		scope := admissionregistrationv1.ClusterScope
		if m.Namespaced {
			scope = admissionregistrationv1.NamespacedScope
		}
		rules := []admissionregistrationv1.RuleWithOperations{{
			Operations: slices.Clone(ops),
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{m.Resource.Group}, APIVersions: []string{m.Resource.Version},
				Resources: resources, Scope: &scope,
			},
		}}
		fp := r.opts.FailurePolicy
		if fp == "" {
			fp = admissionregistrationv1.Fail
		}
		se := r.opts.SideEffects
		if se == "" {
			se = admissionregistrationv1.SideEffectClassNone
		}
		var timeout *int32
		if r.opts.TimeoutSeconds != 0 {
			timeout = &r.opts.TimeoutSeconds
		}
		match := admissionregistrationv1.Equivalent
		cc := t.clientConfig(r.path)
		if r.mutating {
			if out.Mutating == nil {
				out.Mutating = &admissionregistrationv1.MutatingWebhookConfiguration{
					TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
					ObjectMeta: metav1.ObjectMeta{Name: s.name},
				}
			}
			reinvoke := r.opts.ReinvocationPolicy
			if reinvoke == "" {
				reinvoke = admissionregistrationv1.NeverReinvocationPolicy
			}
			out.Mutating.Webhooks = append(out.Mutating.Webhooks, admissionregistrationv1.MutatingWebhook{
				Name: name, ClientConfig: cc, Rules: rules, FailurePolicy: &fp, MatchPolicy: &match,
				NamespaceSelector: r.opts.NamespaceSelector, ObjectSelector: r.opts.ObjectSelector,
				SideEffects: &se, TimeoutSeconds: timeout, AdmissionReviewVersions: []string{"v1"},
				ReinvocationPolicy: &reinvoke, MatchConditions: slices.Clone(r.opts.MatchConditions),
			})
			continue
		}
		if out.Validating == nil {
			out.Validating = &admissionregistrationv1.ValidatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
				ObjectMeta: metav1.ObjectMeta{Name: s.name},
			}
		}
		out.Validating.Webhooks = append(out.Validating.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: name, ClientConfig: cc, Rules: rules, FailurePolicy: &fp, MatchPolicy: &match,
			NamespaceSelector: r.opts.NamespaceSelector, ObjectSelector: r.opts.ObjectSelector,
			SideEffects: &se, TimeoutSeconds: timeout, AdmissionReviewVersions: []string{"v1"},
			MatchConditions: slices.Clone(r.opts.MatchConditions),
		})
	}
	crds := map[string]bool{}
	for _, r := range convs {
		if err := checkPath(r.path, paths); err != nil {
			return nil, err
		}
		m, err := r.resolve(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("webhookconfig: the resource of the conversion webhook at %s: %w", r.path, err)
		}
		if m.Resource.Group == "" {
			return nil, fmt.Errorf("%w: the conversion webhook at %s is for %s, not a custom resource", ErrInvalidWebhook, r.path, m.Resource)
		}
		crd := m.Resource.Resource + "." + m.Resource.Group
		if crds[crd] {
			return nil, fmt.Errorf("%w: two conversion webhooks for %s", ErrInvalidWebhook, crd)
		}
		crds[crd] = true
		out.Conversions = append(out.Conversions, Conversion{CRD: crd, ClientConfig: t.clientConfig(r.path)})
	}
	return out, nil
}

func checkPath(path string, seen map[string]bool) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("%w: path %q does not start with /", ErrInvalidWebhook, path)
	}
	if seen[path] {
		return fmt.Errorf("%w: path %q registered twice", ErrInvalidWebhook, path)
	}
	seen[path] = true
	return nil
}

func (t Target) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: slices.Clone(t.CABundle)}
	if t.Service != nil {
		port := int32(443)
		if t.Service.Port != nil {
			port = *t.Service.Port
		}
		p := path
		cc.Service = &admissionregistrationv1.ServiceReference{Namespace: t.Service.Namespace, Name: t.Service.Name, Path: &p, Port: &port}
		return cc
	}
	url := strings.TrimSuffix(t.URL, "/") + path
	cc.URL = &url
	return cc
}
