package fake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// ratchetCRD is the definition of RatchetThings; strict adds a maxLength,
// and CEL rules on a field, on the items of a set and on the items of a
// map list.
func ratchetCRD(strict bool) map[string]any {
	rule := func(r, msg string) []any { return []any{map[string]any{"rule": r, "message": msg}} }
	name := map[string]any{"type": "string"}
	count := map[string]any{"type": "integer"}
	tag := map[string]any{"type": "string"}
	item := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name": map[string]any{"type": "string", "maxLength": int64(10)}, "weight": map[string]any{"type": "integer"},
	}}
	if strict {
		name["maxLength"] = int64(5)
		count["x-kubernetes-validations"] = rule("self < 10", "count under 10")
		tag["x-kubernetes-validations"] = rule("self.size() < 3", "short tag")
		item["x-kubernetes-validations"] = rule("self.weight < 10", "light item")
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "ratchetthings." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "ratchetthings", "singular": "ratchetthing", "kind": "RatchetThing", "listKind": "RatchetThingList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
						"name": name, "count": count, "other": map[string]any{"type": "string"},
						"ids": map[string]any{"type": "array", "maxItems": int64(10), "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string", "maxLength": int64(10)},
							"x-kubernetes-validations": rule("self == oldSelf", "ids are immutable")},
						"tags":  map[string]any{"type": "array", "maxItems": int64(10), "x-kubernetes-list-type": "set", "items": tag},
						"items": map[string]any{"type": "array", "maxItems": int64(10), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": item},
					}}},
				}},
			}},
		},
	}
}

// celRatcheting stores an object, then makes its definition stricter:
// updates that leave the values the new rules refuse as they were are
// accepted (kube-apiserver's ratcheting), those that change them are not.
// A transition rule comparing a set with == ignores its order. The items
// of a set have no old value of their own: they are ratcheted
// only while the whole set is unchanged; the items of a map list are
// paired with the old ones by key.
func celRatcheting(e *env) {
	req := e.serveCRD(ratchetCRD(false), "ratchetthings")
	item := func(n string, w int64) map[string]any { return map[string]any{"name": n, "weight": w} }
	spec := map[string]any{"name": "toolong", "count": int64(50), "other": "a", "tags": []any{"aaaa"}, "items": []any{item("x", 50), item("y", 1)}, "ids": []any{"a", "b"}}
	must(e, req(http.MethodPost).Body(customResource("RatchetThing", "r", spec)).Do(e.ctx).Error())

	crds := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("ratchetthings." + widgetGroup)
	}
	var cur map[string]any
	raw, err := crds(http.MethodGet).Do(e.ctx).Raw()
	must(e, err)
	must(e, json.Unmarshal(raw, &cur))
	cur["spec"].(map[string]any)["versions"] = ratchetCRD(true)["spec"].(map[string]any)["versions"]
	body, _ := json.Marshal(cur)
	must(e, crds(http.MethodPut).Body(body).Do(e.ctx).Error())
	// kube-apiserver takes a new schema a moment after the definition's update.
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	probe := map[string]any{"count": int64(11)}
	if err := kubegotest.Poll(ctx, func(ctx context.Context) error {
		err := req(http.MethodPost).Body(customResource("RatchetThing", "probe", probe)).Do(ctx).Error()
		if err == nil {
			_ = req(http.MethodDelete).Name("probe").Do(ctx).Error()
			return errStillLoose
		}
		return nil
	}); err != nil {
		e.Fatalf("stricter schema not served: %v", err)
	}

	update := func(change func(spec map[string]any)) *rest.Request {
		var u unstructured.Unstructured
		raw, err := req(http.MethodGet).Name("r").Do(e.ctx).Raw()
		must(e, err)
		must(e, u.UnmarshalJSON(raw))
		change(u.Object["spec"].(map[string]any))
		body, err := u.MarshalJSON()
		must(e, err)
		return req(http.MethodPut).Name("r").Body(body)
	}
	// Values left as they were are not refused for the new rules; the CEL
	// rules' failures are sent as warnings.
	var got warningRecorder
	cfg := *e.cfg
	cfg.WarningHandler = &got
	wc, err := rest.NewClient(&cfg)
	must(e, err)
	raw, err = req(http.MethodGet).Name("r").Do(e.ctx).Raw()
	must(e, err)
	var obj map[string]any
	must(e, json.Unmarshal(raw, &obj))
	obj["spec"].(map[string]any)["other"] = "b"
	body, _ = json.Marshal(obj)
	must(e, wc.Put().Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("ratchetthings").Name("r").Body(body).Do(e.ctx).Error())
	for _, w := range []string{`spec.count: Invalid value: 50: count under 10`, `spec.tags[0]: Invalid value: "aaaa": short tag`, `spec.items[0]: Invalid value: light item`} {
		if !slices.Contains(got.texts(), w) {
			e.Errorf("warnings %q, want %q among them", got.texts(), w)
		}
	}
	// A map list's items are paired by key, whatever their order.
	must(e, update(func(s map[string]any) { s["items"] = []any{item("y", 2), item("x", 50)} }).Do(e.ctx).Error())
	// == ignores the order of a set's items.
	must(e, update(func(s map[string]any) { s["ids"] = []any{"b", "a"} }).Do(e.ctx).Error())
	wantCause(e, "changed ids", celCauses(e, "changed ids", update(func(s map[string]any) { s["ids"] = []any{"b", "c"} })), "spec.ids: Invalid value: ids are immutable")
	// A changed set: its old item has no old value of its own.
	wantCause(e, "changed set", celCauses(e, "changed set", update(func(s map[string]any) { s["tags"] = []any{"aaaa", "b"} })), `spec.tags[0]: Invalid value: "aaaa": short tag`)
	wantCause(e, "changed name", celCauses(e, "changed name", update(func(s map[string]any) { s["name"] = "toolong2" })), "spec.name: Too long: may not be more than 5")
	wantCause(e, "changed count", celCauses(e, "changed count", update(func(s map[string]any) { s["count"] = int64(51) })), "spec.count: Invalid value: 51: count under 10")
	wantCause(e, "changed map list item", celCauses(e, "changed map list item", update(func(s map[string]any) { s["items"] = []any{item("y", 2), item("x", 51)} })), "spec.items[1]: Invalid value: light item")
}

// warningRecorder keeps the texts of the Warning headers received.
type warningRecorder struct {
	mu  sync.Mutex
	all []string
}

func (r *warningRecorder) HandleWarning(_ int, _, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, text)
}

func (r *warningRecorder) texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.all)
}

var errStillLoose = errString("the definition's stricter schema is not served yet")

type errString string

func (e errString) Error() string { return string(e) }
