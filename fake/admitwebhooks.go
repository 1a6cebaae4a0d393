package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
)

var (
	mutatingWebhooksGVR   = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}
	validatingWebhooksGVR = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
)

// admission is one write being admitted: what kube-apiserver's admission
// attributes hold, in the form the webhooks are sent.
type admission struct {
	req     *request
	op      admissionv1.Operation
	name    string // as the request names it ("" for a create by generateName and a collection's deletions)
	obj     map[string]any
	old     map[string]any
	dryRun  bool
	options runtime.Object
	// kind is the kind of obj and old when it is not the resource's: the
	// autoscaling/v1 Scale of the scale subresource.
	kind *schema.GroupVersionKind
	// collection marks the deletion of one object of a DELETE of a
	// collection: its namespace is the request's (none across
	// namespaces), as kube-apiserver sends it.
	collection bool
	// conv converts obj and old to the version of a webhook matched
	// through matchPolicy Equivalent (set by matchingWebhooks).
	conv func(u map[string]any, to *resource) (map[string]any, error)
	// warnMu serializes the Warning headers of webhooks called at once.
	warnMu sync.Mutex
}

// admits reports whether a write of req goes through the admission
// webhooks: requests of clients do, objects seeded through Add and writes
// the server makes itself do not.
func (req *request) admits() bool { return req.r != nil }

// scaleKind is the kind the scale subresource is admitted as.
var scaleKind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// newAdmission describes a write of req for the webhooks. Caller holds s.mu.
func newAdmission(req *request, op admissionv1.Operation, name string, dryRun bool) *admission {
	a := &admission{req: req, op: op, name: name, dryRun: dryRun}
	var dr []string
	if dryRun {
		dr = []string{metav1.DryRunAll}
	}
	fm := req.r.URL.Query().Get("fieldManager")
	switch {
	case op == admissionv1.Create:
		a.options = &metav1.CreateOptions{DryRun: dr, FieldManager: fm}
	case op == admissionv1.Delete:
		a.options = &metav1.DeleteOptions{DryRun: dr}
	case req.verb == "patch":
		a.options = &metav1.PatchOptions{DryRun: dr, FieldManager: fm}
	default:
		a.options = &metav1.UpdateOptions{DryRun: dr, FieldManager: fm}
	}
	if ro, ok := a.options.(interface {
		GetObjectKind() schema.ObjectKind
	}); ok {
		kind := reflect.TypeOf(a.options).Elem().Name()
		ro.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind(kind))
	}
	return a
}

// mutate calls the mutating webhooks that match a, in kube-apiserver's
// order (configurations by name, webhooks as listed; each one's object
// selector and matchConditions evaluated against the object as the
// webhooks before it left it), applies their JSON
// patches to a.obj, and calls once more each webhook of reinvocationPolicy
// IfNeeded that a later webhook's change has not been shown to. It returns
// the object as the webhooks left it (a.obj itself when none matched).
// Caller holds s.mu; it is released while webhooks are called.
func (s *Server) mutate(a *admission) (map[string]any, error) {
	hooks, err := s.matchingWebhooks(mutatingWebhooksGVR, a, false)
	if err != nil || len(hooks) == 0 {
		return a.obj, err
	}
	s.mu.Unlock()
	defer s.mu.Lock()
	version := 0
	seen := make([]int, len(hooks))
	called := make([]bool, len(hooks))
	call := func(i int) error {
		h := &hooks[i]
		// As kube-apiserver does, each webhook's object selector and
		// matchConditions see the object as the webhooks before it left it.
		s.mu.Lock()
		ok, err := s.webhookMatches(h, a)
		if err == nil && ok {
			ok, err = s.matchConditionsAllow(h, a)
		}
		s.mu.Unlock()
		if err != nil || !ok {
			seen[i] = version
			return err
		}
		called[i] = true
		patched, err := s.callAdmission(h, a)
		if err != nil {
			return err
		}
		seen[i] = version
		if patched != nil && !reflect.DeepEqual(patched, a.obj) {
			a.obj = patched
			version++
			seen[i] = version
		}
		return nil
	}
	for i := range hooks {
		if err := call(i); err != nil {
			return nil, err
		}
	}
	for i := range hooks {
		if hooks[i].reinvoke && called[i] && seen[i] != version {
			if err := call(i); err != nil {
				return nil, err
			}
		}
	}
	return a.obj, nil
}

// validate calls the validating webhooks that match a, all at once as
// kube-apiserver does, and waits for every answer; the write's error is
// the first denial or failure to arrive (kube-apiserver answers with one
// error, not a merge of them). Caller holds s.mu; it is released while
// webhooks are called.
func (s *Server) validate(a *admission) error {
	hooks, err := s.matchingWebhooks(validatingWebhooksGVR, a, true)
	if err != nil || len(hooks) == 0 {
		return err
	}
	s.mu.Unlock()
	defer s.mu.Lock()
	errs := make(chan error, len(hooks))
	var wg sync.WaitGroup
	for i := range hooks {
		wg.Go(func() {
			if _, err := s.callAdmission(&hooks[i], a); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// callAdmission sends one AdmissionReview and reads its answer: a denial
// is the error kube-apiserver answers with, a failed call fails the write
// or is ignored by the webhook's failurePolicy, a JSON patch is applied
// to a copy of a.obj and returned (nil without a patch).
func (s *Server) callAdmission(h *webhook, a *admission) (map[string]any, error) {
	if a.dryRun && h.sideEffects != admissionregistrationv1.SideEffectClassNone && h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
	}
	obj, old := a.obj, a.old
	converted := h.via != nil && a.kind == nil && a.conv != nil
	if converted {
		var err error
		if obj, old, err = a.convertTo(h.via); err != nil {
			return nil, err
		}
	}
	resp, err := s.review(h, a, obj, old)
	if err != nil {
		if h.failurePolicy == admissionregistrationv1.Ignore {
			s.logger.Warn("fake: admission webhook failed, ignored by its failurePolicy", "webhook", h.name, "err", err)
			return nil, nil
		}
		return nil, apierrors.NewInternalError(fmt.Errorf("failed calling webhook %q: %w", h.name, err))
	}
	a.warnMu.Lock()
	a.req.warn(resp.Warnings)
	a.warnMu.Unlock()
	if !resp.Allowed {
		return nil, denied(h.name, resp.Result)
	}
	if len(resp.Patch) == 0 || !h.mutating || obj == nil {
		return nil, nil
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		err := fmt.Errorf("failed calling webhook %q: unsupported patch type %v", h.name, resp.PatchType)
		if h.failurePolicy == admissionregistrationv1.Ignore {
			s.logger.Warn("fake: admission webhook failed, ignored by its failurePolicy", "webhook", h.name, "err", err)
			return nil, nil
		}
		return nil, apierrors.NewInternalError(err)
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("admission webhook %q sent a patch that does not decode: %w", h.name, err))
	}
	cur, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, err := p.Apply(cur)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("admission webhook %q sent a patch that does not apply: %w", h.name, err))
	}
	u, err := decodeJSONMap(out)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("admission webhook %q patched the object into something that does not decode: %w", h.name, err))
	}
	if converted {
		// The patch applies to the webhook's version; the write goes on
		// in the request's.
		if u, err = a.conv(u, a.req.res); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// convertTo returns a's object and old object in the version of res, for a
// webhook matched through another version of the resource.
func (a *admission) convertTo(res *resource) (obj, old map[string]any, err error) {
	if a.obj != nil {
		if obj, err = a.conv(a.obj, res); err != nil {
			return nil, nil, err
		}
	}
	if a.old != nil {
		if old, err = a.conv(a.old, res); err != nil {
			return nil, nil, err
		}
	}
	return obj, old, nil
}

// review sends h the AdmissionReview of a, with obj and old (a's, or as
// converted to the version h is called in), and returns its response,
// checked as kube-apiserver checks it.
func (s *Server) review(h *webhook, a *admission, obj, old map[string]any) (*admissionv1.AdmissionResponse, error) {
	if !slices.Contains(h.reviewVersions, "v1") {
		return nil, fmt.Errorf("webhook does not accept the AdmissionReview version v1 (admissionReviewVersions %v)", h.reviewVersions)
	}
	kindOf := func(res *resource) metav1.GroupVersionKind {
		k := res.gvk
		if a.kind != nil {
			k = *a.kind
		}
		return metav1.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
	}
	resourceOf := func(res *resource) metav1.GroupVersionResource {
		return metav1.GroupVersionResource{Group: res.gvr.Group, Version: res.gvr.Version, Resource: res.gvr.Resource}
	}
	sent := a.req.res
	if h.via != nil {
		sent = h.via
	}
	gvk, gvr := kindOf(a.req.res), resourceOf(a.req.res)
	r := &admissionv1.AdmissionRequest{
		UID: uuid.NewUUID(), Kind: kindOf(sent), Resource: resourceOf(sent), SubResource: a.req.sub,
		RequestKind: &gvk, RequestResource: &gvr, RequestSubResource: a.req.sub,
		Name: a.name, Namespace: a.namespace(), Operation: a.op,
		UserInfo: authenticationv1.UserInfo{Username: "system:admin", Groups: []string{"system:masters", "system:authenticated"}},
		DryRun:   &a.dryRun,
	}
	var err error
	if obj != nil {
		if r.Object.Raw, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	if old != nil {
		if r.OldObject.Raw, err = json.Marshal(old); err != nil {
			return nil, err
		}
	}
	if r.Options.Raw, err = json.Marshal(a.options); err != nil {
		return nil, err
	}
	in := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: r}
	body, err := json.Marshal(&in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(a.req.r.Context(), h.timeout)
	defer cancel()
	data, err := s.post(ctx, h.clientConfig, body, h.timeout)
	if err != nil {
		return nil, err
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("the response does not decode as an AdmissionReview: %w", err)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s", out.APIVersion, out.Kind)
	}
	if out.Response == nil {
		return nil, fmt.Errorf("webhook response was absent")
	}
	if out.Response.UID != r.UID {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", r.UID, out.Response.UID)
	}
	return out.Response, nil
}

// namespace is the namespace of the admission request: the object's, or
// for a Namespace its own name, as kube-apiserver sends it.
func (a *admission) namespace() string {
	if a.req.res.gvr == namespacesGVR && !a.collection {
		return a.name
	}
	if !a.req.res.namespaced {
		return ""
	}
	if a.collection {
		return a.req.namespace
	}
	for _, o := range []map[string]any{a.obj, a.old} {
		if o != nil {
			if ns := (&unstructured.Unstructured{Object: o}).GetNamespace(); ns != "" {
				return ns
			}
		}
	}
	return a.req.namespace
}

// denied is the error of a webhook's denial, worded as kube-apiserver
// words it: the webhook's status, its code at least 400, its message
// prefixed with the webhook's name.
func denied(name string, result *metav1.Status) error {
	st := metav1.Status{Status: metav1.StatusFailure}
	if result != nil {
		st = *result.DeepCopy()
	}
	st.TypeMeta = metav1.TypeMeta{}
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	if st.Status == "" || st.Status == metav1.StatusSuccess {
		st.Status = metav1.StatusFailure
	}
	by := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = by + ": " + st.Message
	case st.Reason != "":
		st.Message = by + ": " + string(st.Reason)
	default:
		st.Message = by + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// warn adds warnings to the response as Warning headers, as kube-apiserver
// surfaces those of admission webhooks.
func (req *request) warn(warnings []string) {
	if req == nil || req.w == nil {
		return
	}
	for _, w := range warnings {
		// kube-apiserver sends each warning text once per response.
		if slices.Contains(req.warned, w) {
			continue
		}
		req.warned = append(req.warned, w)
		w = strings.Map(func(r rune) rune {
			if r < ' ' || r == 0x7f {
				return ' '
			}
			return r
		}, w)
		req.w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(strings.ReplaceAll(w, `\`, `\\`), `"`, `\"`)+`"`)
	}
}

// timeoutOf is a webhook's call timeout: timeoutSeconds, ten seconds when
// unset, as kube-apiserver defaults it.
func timeoutOf(s *int32) time.Duration {
	if s == nil || *s <= 0 {
		return 10 * time.Second
	}
	return time.Duration(*s) * time.Second
}
