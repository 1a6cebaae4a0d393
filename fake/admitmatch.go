package fake

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// webhook is one admission webhook of a stored configuration, in the form
// mutating and validating webhooks share.
type webhook struct {
	name           string
	mutating       bool
	clientConfig   admissionregistrationv1.WebhookClientConfig
	rules          []admissionregistrationv1.RuleWithOperations
	failurePolicy  admissionregistrationv1.FailurePolicyType
	matchPolicy    admissionregistrationv1.MatchPolicyType
	nsSelector     *metav1.LabelSelector
	objSelector    *metav1.LabelSelector
	sideEffects    admissionregistrationv1.SideEffectClass
	timeout        time.Duration
	reviewVersions []string
	reinvoke       bool
	// via is, for a webhook matched through matchPolicy Equivalent, the
	// other version of the request's resource its rules name: the
	// request is sent to it converted to that version. nil for an exact
	// match.
	via *resource
	// matchConditions are evaluated by admitcel.go.
	matchConditions []admissionregistrationv1.MatchCondition
}

// neverAdmitted are the resources kube-apiserver never sends to admission
// webhooks, so that a broken webhook cannot lock its own fix out.
var neverAdmitted = map[schema.GroupResource]bool{
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   true,
}

// storedWebhooks lists the webhooks of the stored configurations of gvr
// (mutating or validating), configurations by name and webhooks as listed,
// the order kube-apiserver calls them in. Caller holds s.mu.
func (s *Server) storedWebhooks(gvr schema.GroupVersionResource) ([]webhook, error) {
	objs := make([]*object, 0, len(s.st.data[gvr]))
	for _, o := range s.st.data[gvr] {
		objs = append(objs, o)
	}
	slices.SortFunc(objs, func(a, b *object) int { return strings.Compare(a.key.name, b.key.name) })
	var out []webhook
	for _, o := range objs {
		if gvr == mutatingWebhooksGVR {
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := fromUnstructured(o.u, &c); err != nil {
				return nil, apierrors.NewInternalError(fmt.Errorf("reading MutatingWebhookConfiguration %s: %w", o.key.name, err))
			}
			for _, w := range c.Webhooks {
				out = append(out, webhook{
					name: w.Name, mutating: true, clientConfig: w.ClientConfig, rules: w.Rules,
					failurePolicy: deref(w.FailurePolicy), matchPolicy: deref(w.MatchPolicy),
					nsSelector: w.NamespaceSelector, objSelector: w.ObjectSelector,
					sideEffects: deref(w.SideEffects), timeout: timeoutOf(w.TimeoutSeconds),
					reviewVersions:  w.AdmissionReviewVersions,
					reinvoke:        deref(w.ReinvocationPolicy) == admissionregistrationv1.IfNeededReinvocationPolicy,
					matchConditions: w.MatchConditions,
				})
			}
			continue
		}
		var c admissionregistrationv1.ValidatingWebhookConfiguration
		if err := fromUnstructured(o.u, &c); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", o.key.name, err))
		}
		for _, w := range c.Webhooks {
			out = append(out, webhook{
				name: w.Name, clientConfig: w.ClientConfig, rules: w.Rules,
				failurePolicy: deref(w.FailurePolicy), matchPolicy: deref(w.MatchPolicy),
				nsSelector: w.NamespaceSelector, objSelector: w.ObjectSelector,
				sideEffects: deref(w.SideEffects), timeout: timeoutOf(w.TimeoutSeconds),
				reviewVersions:  w.AdmissionReviewVersions,
				matchConditions: w.MatchConditions,
			})
		}
	}
	return out, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// matchingWebhooks returns the webhooks of gvr's configurations that a is
// sent to, each with the version it is sent in. Caller holds s.mu.
func (s *Server) matchingWebhooks(gvr schema.GroupVersionResource, a *admission, conditions bool) ([]webhook, error) {
	if len(s.st.data[gvr]) == 0 || neverAdmitted[a.req.res.gvr.GroupResource()] {
		return nil, nil
	}
	all, err := s.storedWebhooks(gvr)
	if err != nil {
		return nil, err
	}
	var out []webhook
	for _, h := range all {
		h.via = nil
		ok, err := s.webhookMatches(&h, a)
		if err == nil && ok && conditions {
			ok, err = s.matchConditionsAllow(&h, a)
		}
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, h)
			if h.via != nil && a.conv == nil {
				a.conv = s.converter(a.req.res)
			}
		}
	}
	return out, nil
}

// webhookMatches applies a webhook's rules, scope and selectors to a, as
// kube-apiserver does, and sets h.via when the webhook is matched through
// another version of the resource. A selector that does not parse fails
// the write (kube-apiserver would have refused the configuration). Caller
// holds s.mu.
func (s *Server) webhookMatches(h *webhook, a *admission) (bool, error) {
	if !slices.ContainsFunc(h.rules, func(r admissionregistrationv1.RuleWithOperations) bool { return ruleMatches(r, a, a.req.res) }) {
		via := s.equivalentMatch(h, a)
		if via == nil {
			return false, nil
		}
		h.via = via
	}
	objSel, err := selector(h.objSelector)
	if err != nil {
		return false, webhookSelectorError(h.name, "objectSelector", err)
	}
	if !objSel.Empty() && !slices.ContainsFunc([]map[string]any{a.obj, a.old}, func(o map[string]any) bool {
		return o != nil && objSel.Matches(labels.Set((&unstructured.Unstructured{Object: o}).GetLabels()))
	}) {
		return false, nil
	}
	nsSel, err := selector(h.nsSelector)
	if err != nil {
		return false, webhookSelectorError(h.name, "namespaceSelector", err)
	}
	if nsSel.Empty() {
		return true, nil
	}
	res := a.req.res
	switch {
	case res.gvr == namespacesGVR:
		// A Namespace is matched by its own labels.
		return slices.ContainsFunc([]map[string]any{a.obj, a.old}, func(o map[string]any) bool {
			return o != nil && nsSel.Matches(labels.Set((&unstructured.Unstructured{Object: o}).GetLabels()))
		}), nil
	case !res.namespaced, a.namespace() == "":
		// A request of no namespace (a cluster-scoped resource, or the
		// deletion of a collection across namespaces) is never left
		// out by a namespaceSelector, as on kube-apiserver.
		return true, nil
	}
	ns := s.st.data[namespacesGVR][key{name: a.namespace()}]
	if ns == nil {
		return false, nil
	}
	return nsSel.Matches(labels.Set(ns.meta().GetLabels())), nil
}

func selector(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

func webhookSelectorError(name, field string, err error) error {
	return apierrors.NewInternalError(fmt.Errorf("webhook %q: invalid %s: %w", name, field, err))
}

// equivalentMatch is, for a webhook of matchPolicy Equivalent none of
// whose rules names the request's resource and version, the first other
// served version of the same custom resource one of its rules names
// (rules in order, versions by priority), as kube-apiserver sends such a
// request converted to the version the webhook asked for; nil when there
// is none. Built-in resources have no other version here: the fake keeps
// each version of a built-in resource apart. Caller holds s.mu.
func (s *Server) equivalentMatch(h *webhook, a *admission) *resource {
	if h.matchPolicy != admissionregistrationv1.Equivalent {
		return nil
	}
	views := s.versionViews(a.req.res)
	for _, r := range h.rules {
		for _, v := range views {
			if ruleMatches(r, a, v) {
				return v
			}
		}
	}
	return nil
}

// ruleMatches applies one rule to a, as a request of res: operation,
// group, version, resource and subresource ("*" for all resources, "*/*"
// for all and their subresources, "pods/*", "*/status"), and scope.
func ruleMatches(r admissionregistrationv1.RuleWithOperations, a *admission, res *resource) bool {
	if !slices.ContainsFunc(r.Operations, func(op admissionregistrationv1.OperationType) bool {
		return op == admissionregistrationv1.OperationAll || string(op) == string(a.op)
	}) {
		return false
	}
	gvr := res.gvr
	if !matchesOne(r.APIGroups, gvr.Group) || !matchesOne(r.APIVersions, gvr.Version) {
		return false
	}
	if !slices.ContainsFunc(r.Resources, func(s string) bool {
		res, sub, _ := strings.Cut(s, "/")
		return (res == "*" || res == gvr.Resource) && (sub == "*" || sub == a.req.sub)
	}) {
		return false
	}
	switch deref(r.Scope) {
	case admissionregistrationv1.ClusterScope:
		return gvr == namespacesGVR || !res.namespaced
	case admissionregistrationv1.NamespacedScope:
		return gvr != namespacesGVR && res.namespaced
	}
	return true
}

func matchesOne(list []string, v string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return s == "*" || s == v })
}

// opOf is the admission operation of a write verb.
func opOf(creating bool) admissionv1.Operation {
	if creating {
		return admissionv1.Create
	}
	return admissionv1.Update
}

// ErrUnsupportedWebhook is wrapped by the error of a write of a webhook
// configuration the fake cannot honour: one whose matchConditions use the
// authorizer variable (authorization checks, which the fake does not
// make). The write is refused (501 Not Implemented) rather than stored and
// called for requests its conditions would have left out.
var ErrUnsupportedWebhook = errors.New("fake: webhook configuration not supported")

// unsupportedWebhookError is a StatusError (what the client is answered)
// that is also ErrUnsupportedWebhook.
type unsupportedWebhookError struct{ apierrors.StatusError }

func (e *unsupportedWebhookError) Unwrap() error { return ErrUnsupportedWebhook }

// refuseUnsupportedWebhooks refuses a webhook configuration whose
// matchConditions do not compile or use what the fake does not offer
// (checkMatchConditions); other objects pass.
func refuseUnsupportedWebhooks(obj any) error {
	var hooks []hookConditions
	switch c := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for _, w := range c.Webhooks {
			hooks = append(hooks, hookConditions{w.Name, w.MatchConditions})
		}
		return checkMatchConditions("MutatingWebhookConfiguration", c.Name, hooks)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for _, w := range c.Webhooks {
			hooks = append(hooks, hookConditions{w.Name, w.MatchConditions})
		}
		return checkMatchConditions("ValidatingWebhookConfiguration", c.Name, hooks)
	}
	return nil
}
