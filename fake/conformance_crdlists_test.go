package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// gizmos serves the custom resource Gizmo, whose spec has a set of tags,
// a map list of ports keyed by port and protocol, and formatted strings.
func (e *env) gizmos() {
	e.Helper()
	item := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gizmos." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": item(map[string]any{
					"spec": item(map[string]any{
						"tags": map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string"}},
						"ports": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"port", "protocol"},
							"items": map[string]any{"type": "object", "required": []any{"port"}, "properties": map[string]any{
								"port":     map[string]any{"type": "integer"},
								"protocol": map[string]any{"type": "string", "default": "TCP"},
								"name":     map[string]any{"type": "string"},
							}}},
						"created": map[string]any{"type": "string", "format": "date-time"},
						"id":      map[string]any{"type": "string", "format": "uuid"},
						"addr":    map[string]any{"type": "string", "format": "ipv4"},
						"data":    map[string]any{"type": "string", "format": "byte"},
						"host":    map[string]any{"type": "string", "format": "k8s-short-name"},
						"free":    map[string]any{"type": "string", "format": "no-such-format"},
						"count":   map[string]any{"type": "integer", "format": "int32"},
					}),
				})},
			}},
		},
	}
	e.serveCRD(crd, "gizmos")
}

// Lists of type set and map refuse repeated items and keys (422, one
// Duplicate cause at each second occurrence), after defaulting: two ports
// that differ only by a defaulted protocol collide.
func customResourceListTypes(e *env) {
	e.gizmos()
	post := func(name string, spec map[string]any) error {
		body, _ := json.Marshal(map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Gizmo", "metadata": map[string]any{"name": name}, "spec": spec})
		return e.c.Verb(http.MethodPost).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gizmos").Body(body).Do(e.ctx).Error()
	}
	must(e, post("ok", map[string]any{
		"tags":  []any{"a", "b"},
		"ports": []any{map[string]any{"port": 80}, map[string]any{"port": 80, "protocol": "UDP"}},
	}))
	for _, tc := range []struct {
		spec   map[string]any
		fields []string
	}{
		{map[string]any{"tags": []any{"a", "b", "a", "a"}}, []string{"spec.tags[2]"}},
		{map[string]any{"ports": []any{map[string]any{"port": 80, "name": "x"}, map[string]any{"port": 80, "protocol": "TCP", "name": "y"}}}, []string{"spec.ports[1]"}},
	} {
		err := post("bad", tc.spec)
		se := wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		var got []string
		if se.ErrStatus.Details != nil {
			for _, c := range se.ErrStatus.Details.Causes {
				if c.Type == metav1.CauseTypeFieldValueDuplicate {
					got = append(got, c.Field)
				}
			}
		}
		if len(got) != len(tc.fields) || got[0] != tc.fields[0] {
			e.Fatalf("spec %v: Duplicate causes at %v, want %v (%+v)", tc.spec, got, tc.fields, se.ErrStatus.Details)
		}
	}
	var u unstructured.Unstructured
	must(e, e.c.Get().Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gizmos").Name("ok").Do(e.ctx).Into(&u))
	if ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports"); len(ports) != 2 || ports[0].(map[string]any)["protocol"] != "TCP" {
		e.Fatalf("ports %v", ports)
	}
}

// Strings with a format kube-apiserver knows are checked against it (422,
// a TypeInvalid cause naming the format); an unknown format is ignored.
func customResourceFormats(e *env) {
	e.gizmos()
	post := func(name string, spec map[string]any) error {
		body, _ := json.Marshal(map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Gizmo", "metadata": map[string]any{"name": name}, "spec": spec})
		return e.c.Verb(http.MethodPost).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gizmos").Body(body).Do(e.ctx).Error()
	}
	must(e, post("ok", map[string]any{
		"created": "2026-12-01T19:00:00Z", "id": "0b0f3c52-7d4e-4f7a-9a55-1c2d3e4f5a6b", "addr": "10.1.2.3",
		"data": "aGVsbG8=", "host": "web-1", "free": "anything at all",
	}))
	for _, tc := range []struct {
		field, value, format string
	}{
		{"created", "yesterday", "date-time"},
		{"id", "not-a-uuid", "uuid"},
		{"addr", "10.1.2", "ipv4"},
		{"data", "%%%", "byte"},
		{"host", "Web_1", "k8s-short-name"},
	} {
		err := post("bad", map[string]any{tc.field: tc.value})
		se := wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		want := fmt.Sprintf("spec.%s in body must be of type %s: %q", tc.field, tc.format, tc.value)
		if se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 ||
			se.ErrStatus.Details.Causes[0].Type != metav1.CauseTypeTypeInvalid || se.ErrStatus.Details.Causes[0].Field != "spec."+tc.field ||
			!strings.Contains(se.ErrStatus.Details.Causes[0].Message, want) {
			e.Fatalf("%s %q: got %+v, want one TypeInvalid cause with %s", tc.field, tc.value, se.ErrStatus.Details, want)
		}
	}
}

// An integer of format int32 out of its range is refused (422, a cause
// at no field naming the path), one in range is stored.
func customResourceInt32Range(e *env) {
	e.gizmos()
	body, _ := json.Marshal(map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "big"}, "spec": map[string]any{"count": int64(3000000000)}})
	err := e.c.Verb(http.MethodPost).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gizmos").Body(body).Do(e.ctx).Error()
	se := wantStatus(e, err, 422, metav1.StatusReasonInvalid)
	want := "Checked value must be of type integer with format int32 in spec.count"
	if se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 || !strings.Contains(se.ErrStatus.Details.Causes[0].Message, want) {
		e.Fatalf("got %+v, want one cause saying %q", se.ErrStatus.Details, want)
	}
	body, _ = json.Marshal(map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "small"}, "spec": map[string]any{"count": int64(2000000000)}})
	must(e, e.c.Verb(http.MethodPost).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gizmos").Body(body).Do(e.ctx).Error())
}
