package admission_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/kubego/kubego/webhook/admission"
)

// widgetDefaulter gives a widget color blue and size 1 when unset.
var widgetDefaulter = admission.DefaulterFunc[*Widget](func(ctx context.Context, w *Widget) error {
	if w.Spec.Color == "" {
		w.Spec.Color = "blue"
	}
	if w.Spec.Size == 0 {
		w.Spec.Size = 1
	}
	if w.Spec.Color == "forbidden" {
		return errors.New("color forbidden is not for sale")
	}
	return nil
})

// applyPatch applies a response's patch to raw the way kube-apiserver does.
func applyPatch(t *testing.T, raw []byte, resp *admissionv1.AdmissionResponse) []byte {
	t.Helper()
	if resp.Patch == nil {
		return raw
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patch type %v, want JSONPatch", resp.PatchType)
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("patch %s: %v", resp.Patch, err)
	}
	out, err := p.Apply(raw)
	if err != nil {
		t.Fatalf("applying %s to %s: %v", resp.Patch, raw, err)
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestDefaulting(t *testing.T) {
	h := admission.Defaulting[Widget](widgetDefaulter, admission.TypedOptions{})
	for _, tc := range []struct {
		name      string
		op        admissionv1.Operation
		raw       string
		want      string // the object after the patch
		wantPatch string // exact patch, when it matters; "" means none
	}{
		{"unset fields are defaulted",
			admissionv1.Create,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"blue","size":1}}`,
			`[{"op":"add","path":"/spec/color","value":"blue"},{"op":"add","path":"/spec/size","value":1}]`},
		{"a missing parent is added whole",
			admissionv1.Create,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"blue","size":1}}`,
			`[{"op":"add","path":"/spec","value":{"color":"blue","size":1}}]`},
		{"nothing to default makes no patch",
			admissionv1.Update,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":2}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":2}}`,
			``},
		{"fields the Go type does not know are kept",
			admissionv1.Create,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","creationTimestamp":null},"spec":{"size":2,"shape":"round","extra":{"a/b":[1,2]}},"status":{"x":1}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","creationTimestamp":null},"spec":{"size":2,"color":"blue","shape":"round","extra":{"a/b":[1,2]}},"status":{"x":1}}`,
			`[{"op":"add","path":"/spec/color","value":"blue"}]`},
		{"a delete is admitted unchanged",
			admissionv1.Delete, ``, ``, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj, old runtime.RawExtension
			if tc.op == admissionv1.Delete {
				old = widgetJSON(t, "w", `{}`)
			} else {
				obj = runtime.RawExtension{Raw: []byte(tc.raw)}
			}
			_, rev, body := do(t, t.Context(), h, reviewBody(t, request(tc.op, obj, old)))
			resp := rev.Response
			if !resp.Allowed {
				t.Fatalf("denied: %s", body)
			}
			if string(resp.Patch) != tc.wantPatch {
				t.Errorf("patch %s, want %s", resp.Patch, tc.wantPatch)
			}
			if tc.raw != "" {
				if got := applyPatch(t, []byte(tc.raw), resp); !jsonEqual(t, got, []byte(tc.want)) {
					t.Errorf("patched object %s, want %s", got, tc.want)
				}
			}
		})
	}
}

func TestDefaulterErrorRefuses(t *testing.T) {
	h := admission.Defaulting[Widget](widgetDefaulter, admission.TypedOptions{})
	_, rev, _ := do(t, t.Context(), h, reviewBody(t, request(admissionv1.Create, widgetJSON(t, "w", `{"color":"forbidden"}`), runtime.RawExtension{})))
	r := rev.Response
	if r.Allowed || r.Result.Code != http.StatusForbidden || r.Result.Message != "color forbidden is not for sale" || r.Patch != nil {
		t.Fatalf("response %+v", r)
	}
}
