package fake

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fieldGetter reads one selectable field of an object as the string the
// selector compares against.
type fieldGetter func(u map[string]any) string

func str(path ...string) fieldGetter {
	return func(u map[string]any) string {
		v, _, _ := unstructured.NestedFieldNoCopy(u, path...)
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			return v
		default:
			return fmt.Sprint(v)
		}
	}
}

func boolean(path ...string) fieldGetter {
	return func(u map[string]any) string {
		v, _, _ := unstructured.NestedBool(u, path...)
		return strconv.FormatBool(v)
	}
}

func integer(path ...string) fieldGetter {
	return func(u map[string]any) string {
		v, _, _ := unstructured.NestedInt64(u, path...)
		return strconv.FormatInt(v, 10)
	}
}

// eventSource is an Event's source field: source.component, else the
// reporting controller.
func eventSource(u map[string]any) string {
	if c := str("source", "component")(u); c != "" {
		return c
	}
	return str("reportingComponent")(u)
}

// selectableFields lists, per kind, the field selectors kube-apiserver
// supports beyond metadata.name and metadata.namespace (the
// ToSelectableFields of pkg/registry/*/strategy.go).
var selectableFields = map[schema.GroupKind]map[string]fieldGetter{
	{Kind: "Pod"}: {
		"spec.nodeName":            str("spec", "nodeName"),
		"spec.restartPolicy":       str("spec", "restartPolicy"),
		"spec.schedulerName":       str("spec", "schedulerName"),
		"spec.serviceAccountName":  str("spec", "serviceAccountName"),
		"spec.hostNetwork":         boolean("spec", "hostNetwork"),
		"status.phase":             str("status", "phase"),
		"status.podIP":             str("status", "podIP"),
		"status.nominatedNodeName": str("status", "nominatedNodeName"),
	},
	{Kind: "Event"}: {
		"involvedObject.kind":            str("involvedObject", "kind"),
		"involvedObject.namespace":       str("involvedObject", "namespace"),
		"involvedObject.name":            str("involvedObject", "name"),
		"involvedObject.uid":             str("involvedObject", "uid"),
		"involvedObject.apiVersion":      str("involvedObject", "apiVersion"),
		"involvedObject.resourceVersion": str("involvedObject", "resourceVersion"),
		"involvedObject.fieldPath":       str("involvedObject", "fieldPath"),
		"reason":                         str("reason"),
		"reportingComponent":             str("reportingComponent"),
		"source":                         eventSource,
		"type":                           str("type"),
	},
	// The same fields under their events.k8s.io names.
	{Group: "events.k8s.io", Kind: "Event"}: {
		"regarding.kind":            str("regarding", "kind"),
		"regarding.namespace":       str("regarding", "namespace"),
		"regarding.name":            str("regarding", "name"),
		"regarding.uid":             str("regarding", "uid"),
		"regarding.apiVersion":      str("regarding", "apiVersion"),
		"regarding.resourceVersion": str("regarding", "resourceVersion"),
		"regarding.fieldPath":       str("regarding", "fieldPath"),
		"reason":                    str("reason"),
		"reportingController":       str("reportingController"),
		"type":                      str("type"),
	},
	{Kind: "Secret"}:                    {"type": str("type")},
	{Kind: "Namespace"}:                 {"status.phase": str("status", "phase")},
	{Kind: "Node"}:                      {"spec.unschedulable": boolean("spec", "unschedulable")},
	{Kind: "ReplicationController"}:     {"status.replicas": integer("status", "replicas")},
	{Kind: "Service"}:                   {"spec.clusterIP": str("spec", "clusterIP"), "spec.type": str("spec", "type")},
	{Group: "apps", Kind: "ReplicaSet"}: {"status.replicas": integer("status", "replicas")},
	{Group: "batch", Kind: "Job"}:       {"status.successful": integer("status", "succeeded")},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: {"spec.signerName": str("spec", "signerName")},
}

// fieldsOf returns the getter of a selectable field of res, or nil.
func fieldsOf(res *resource, name string) fieldGetter {
	switch name {
	case "metadata.name":
		return str("metadata", "name")
	case "metadata.namespace":
		if res.namespaced {
			return str("metadata", "namespace")
		}
		return func(map[string]any) string { return "" }
	}
	return selectableFields[res.gvk.GroupKind()][name]
}

// fieldMatcher is a parsed field selector bound to a resource.
type fieldMatcher struct {
	sel fields.Selector
	get map[string]fieldGetter
}

// newFieldMatcher parses sel for res. An unknown field is an error the
// caller turns into 400 BadRequest.
func newFieldMatcher(res *resource, sel string) (*fieldMatcher, error) {
	if sel == "" {
		return nil, nil
	}
	s, err := fields.ParseSelector(sel)
	if err != nil {
		return nil, err
	}
	m := &fieldMatcher{sel: s, get: map[string]fieldGetter{}}
	for _, r := range s.Requirements() {
		g := fieldsOf(res, r.Field)
		if g == nil && res.builtin && len(selectableFields[res.gvk.GroupKind()]) == 0 {
			// The words of kube-apiserver's default field label
			// conversion, for the kinds with no fields of their own.
			return nil, fmt.Errorf("%q is not a known field selector: only %q, %q", r.Field, "metadata.name", "metadata.namespace")
		}
		if g == nil {
			return nil, fmt.Errorf("field label not supported: %s", r.Field)
		}
		m.get[r.Field] = g
	}
	return m, nil
}

func (m *fieldMatcher) matches(u map[string]any) bool {
	if m == nil {
		return true
	}
	set := make(fields.Set, len(m.get))
	for f, g := range m.get {
		set[f] = g(u)
	}
	return m.sel.Matches(set)
}
