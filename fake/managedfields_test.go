package fake_test

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
)

// Every kind of the defaulting table, written by create and then by
// server-side apply, converts to its schema: the write records the
// writer's fields (the field manager resets managedFields when an object
// does not fit the schema it merges with).
func TestEveryDefaultedKindRecordsManagedFields(t *testing.T) {
	e := newEnv(t, fakeTarget(rest.ContentTypeJSON))
	for _, row := range defaultingRows() {
		group, version, kind := groupVersionOf(e, row.obj)
		req := func(r *rest.Request) *rest.Request {
			r = r.Group(group).Version(version).Resource(row.resource)
			if !row.dryRun {
				r = r.Namespace(e.ns)
			}
			return r
		}
		body, err := json.Marshal(row.obj)
		must(e, err)
		var u unstructured.Unstructured
		must(e, json.Unmarshal(body, &u.Object))
		u.SetAPIVersion(metav1.GroupVersion{Group: group, Version: version}.String())
		u.SetKind(kind)
		if u.GetName() == "" {
			u.SetName("applied")
		}
		// A label, so that even an object with nothing else has a field
		// to own.
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["owned"] = "yes"
		u.SetLabels(labels)
		body, err = json.Marshal(u.Object)
		must(e, err)

		var created unstructured.Unstructured
		must(e, req(e.c.Post()).Param("fieldManager", "creator").Param("dryRun", "All").Body(body).Do(e.ctx).Into(&created))
		var applied unstructured.Unstructured
		if err := req(e.c.Patch(types.ApplyYAMLPatchType)).Name(u.GetName()).Param("fieldManager", "applier").Param("dryRun", "All").
			Body(body).Do(e.ctx).Into(&applied); err != nil {
			t.Errorf("%s: apply: %v", row.name, err)
			continue
		}
		for _, c := range []struct {
			obj     *unstructured.Unstructured
			manager string
		}{{&created, "creator"}, {&applied, "applier"}} {
			if got := managers(c.obj); len(got) != 1 || got[0] != c.manager+":Update" && got[0] != c.manager+":Apply" {
				t.Errorf("%s: managers %v, want %s's", row.name, got, c.manager)
			}
		}
	}
}
