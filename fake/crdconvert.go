package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
)

// The versions of a custom resource are one storage, as on kube-apiserver:
// an object written through one served version is read, listed and
// watched through every other, converted by the definition's
// spec.conversion (None: only apiVersion changes; Webhook: a
// ConversionReview v1 to its webhook). The server keeps one stored copy per
// served version, converted when the object is written, at the same
// resourceVersion (like the Event views, events.go).

// conversionTimeout bounds a conversion webhook call, as kube-apiserver's
// fixed 30 seconds.
const conversionTimeout = 30 * time.Second

// versionViews returns the other served versions of the custom resource
// res. Caller holds s.mu.
func (s *Server) versionViews(res *resource) []*resource {
	if res.builtin {
		return nil
	}
	var out []*resource
	for gvr, r := range s.reg.byGVR {
		if r != res && !r.builtin && gvr.Group == res.gvr.Group && gvr.Resource == res.gvr.Resource {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *resource) int {
		if versionLess(a.gvr.Version, b.gvr.Version) {
			return -1
		}
		return 1
	})
	return out
}

// putVersions writes obj's copies in the other served versions of its
// custom resource. A deletion deletes each copy as it was. Caller holds
// s.mu.
func (s *Server) putVersions(typ watch.EventType, obj *object) {
	for _, view := range s.versionViews(obj.res) {
		old := s.st.get(view, obj.key)
		if typ == watch.Deleted {
			if old == nil {
				continue
			}
			u := old.copy()
			(&unstructured.Unstructured{Object: u}).SetResourceVersion(obj.meta().GetResourceVersion())
			s.st.put(watch.Deleted, newObject(view, u, obj.rv), old)
			continue
		}
		u, err := s.convert(obj.res, view, obj.u)
		no := newObject(view, u, obj.rv)
		no.convErr = err
		vt := watch.Modified
		if old == nil {
			vt = watch.Added
		}
		s.st.put(vt, no, old)
	}
}

// convert returns the content u of an object of from as version to, by the
// conversion of the definition. On failure it returns u with to's
// apiVersion and the error kube-apiserver answers a read of it with.
// Caller holds s.mu (held through a webhook call: a conversion webhook must
// not call the server).
func (s *Server) convert(from, to *resource, u map[string]any) (map[string]any, error) {
	return s.converter(from)(u, to)
}

// converter returns the conversion of the custom resource from as its
// definition stands now, for use without s.mu (admission webhooks are
// called with the lock released): the function returns u as version to
// and, on failure, u with to's apiVersion and a 500 error. Caller holds
// s.mu.
func (s *Server) converter(from *resource) func(u map[string]any, to *resource) (map[string]any, error) {
	var crd map[string]any
	if o := s.st.data[crdGVR][key{name: from.gvr.Resource + "." + from.gvr.Group}]; o != nil {
		crd = o.u
	}
	return func(u map[string]any, to *resource) (map[string]any, error) {
		out := maps.Clone(u)
		out["apiVersion"] = to.gvk.GroupVersion().String()
		if crd == nil {
			return out, nil
		}
		if strategy, _, _ := unstructured.NestedString(crd, "spec", "conversion", "strategy"); strategy != "Webhook" {
			return out, nil
		}
		conv, err := s.convertByWebhook(crd, u, to.gvk.GroupVersion().String())
		if err != nil {
			return out, apierrors.NewInternalError(fmt.Errorf("conversion webhook for %s failed: %w", from.gvk, err))
		}
		return conv, nil
	}
}

// conversionReview is the wire form of an apiextensions.k8s.io/v1
// ConversionReview.
type conversionReview struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Request    *conversionRequest  `json:"request,omitempty"`
	Response   *conversionResponse `json:"response,omitempty"`
}

type conversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type conversionResponse struct {
	UID              string            `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// convertByWebhook sends u to the conversion webhook of the definition crd
// and checks the answer as kube-apiserver does: the review's uid, a
// successful result, one object of the desired apiVersion and of the same
// kind, name, namespace and uid. Of the converted metadata only labels and
// annotations are kept.
func (s *Server) convertByWebhook(crd, u map[string]any, desired string) (map[string]any, error) {
	wh, _, _ := unstructured.NestedMap(crd, "spec", "conversion", "webhook")
	var cfg struct {
		ClientConfig             admissionregistrationv1.WebhookClientConfig `json:"clientConfig"`
		ConversionReviewVersions []string                                    `json:"conversionReviewVersions"`
	}
	if err := fromUnstructured(wh, &cfg); err != nil {
		return nil, fmt.Errorf("reading spec.conversion.webhook: %w", err)
	}
	if !slices.Contains(cfg.ConversionReviewVersions, "v1") {
		return nil, fmt.Errorf("webhook does not accept the ConversionReview version v1 (conversionReviewVersions %v)", cfg.ConversionReviewVersions)
	}
	obj, err := json.Marshal(u)
	if err != nil {
		return nil, err
	}
	uid := string(uuid.NewUUID())
	body, err := json.Marshal(conversionReview{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview",
		Request: &conversionRequest{UID: uid, DesiredAPIVersion: desired, Objects: []json.RawMessage{obj}}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), conversionTimeout)
	defer cancel()
	data, err := s.post(ctx, cfg.ClientConfig, body, conversionTimeout)
	if err != nil {
		return nil, err
	}
	var rv conversionReview
	if err := json.Unmarshal(data, &rv); err != nil {
		return nil, fmt.Errorf("the response does not decode as a ConversionReview: %w", err)
	}
	r := rv.Response
	switch {
	case r == nil:
		return nil, fmt.Errorf("no response provided")
	case r.UID != uid:
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	case r.Result.Status != metav1.StatusSuccess:
		return nil, fmt.Errorf("%s", r.Result.Message)
	case len(r.ConvertedObjects) != 1:
		return nil, fmt.Errorf("expected 1 converted objects, got %d", len(r.ConvertedObjects))
	}
	out, err := decodeJSONMap(r.ConvertedObjects[0])
	if err != nil {
		return nil, fmt.Errorf("the converted object does not decode: %w", err)
	}
	in, conv := &unstructured.Unstructured{Object: u}, &unstructured.Unstructured{Object: out}
	switch {
	case conv.GetAPIVersion() != desired:
		return nil, fmt.Errorf("invalid converted object: expected apiVersion %s, got %s", desired, conv.GetAPIVersion())
	case conv.GetKind() != in.GetKind():
		return nil, fmt.Errorf("invalid converted object: expected kind %s, got %s", in.GetKind(), conv.GetKind())
	case conv.GetName() != in.GetName() || conv.GetNamespace() != in.GetNamespace() || conv.GetUID() != in.GetUID():
		return nil, fmt.Errorf("invalid converted object: its name, namespace or uid changed")
	}
	md := deepCopyValue(u["metadata"]).(map[string]any)
	for _, f := range []string{"labels", "annotations"} {
		if v, ok := conv.Object["metadata"].(map[string]any)[f]; ok {
			md[f] = v
		} else {
			delete(md, f)
		}
	}
	out["metadata"] = md
	return out, nil
}

// convErrOf is the error a read of o answers with: that of its conversion
// from the version it was written in, nil for most.
func convErrOf(o *object) error {
	if o == nil {
		return nil
	}
	return o.convErr
}
