package webhook_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/conversion"
)

// GadgetV1 has its size in centimetres.
type GadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

// GadgetV2 has its length with a unit.
type GadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Length string `json:"length,omitempty"`
	} `json:"spec,omitempty"`
}

func gadgetV1ToV2(_ context.Context, in *GadgetV1, out *GadgetV2) error {
	out.ObjectMeta = in.ObjectMeta
	out.Spec.Length = fmt.Sprintf("%dcm", in.Spec.Size)
	return nil
}

func gadgetV2ToV1(_ context.Context, in *GadgetV2, out *GadgetV1) error {
	out.ObjectMeta = in.ObjectMeta
	if _, err := fmt.Sscanf(in.Spec.Length, "%dcm", &out.Spec.Size); err != nil {
		return fmt.Errorf("spec.length %q is not in cm: %w", in.Spec.Length, err)
	}
	return nil
}

// reviewed returns the names of the objects of the recorded reviews
// asking for desired, sorted.
func reviewed(t *testing.T, rec *recorder, desired string) []string {
	t.Helper()
	var names []string
	for _, body := range rec.all() {
		rev, err := conversion.DecodeReview(body)
		if err != nil {
			t.Fatalf("recorded review: %v", err)
		}
		if rev.Request.DesiredAPIVersion != desired {
			continue
		}
		for _, o := range rev.Request.Objects {
			names = append(names, fmt.Sprint(field(decode(t, o), "metadata", "name")))
		}
	}
	slices.Sort(names)
	return names
}

// specs returns name → spec field of a list's items.
func specs(t *testing.T, raw []byte, key string) map[string]any {
	t.Helper()
	out := map[string]any{}
	items, _ := decode(t, raw)["items"].([]any)
	for _, it := range items {
		o := it.(map[string]any)
		out[fmt.Sprint(field(o, "metadata", "name"))] = field(o, "spec", key)
	}
	return out
}

// A CRD with versions v1 and v2 and a conversion webhook: an object
// created as v1 reads as v2 and back, and once the storage version is v2 a
// list of objects stored as v1 (a, c) and as v2 (b) reads right at either
// version.
func TestIntegrationConversionWebhook(t *testing.T) {
	f := newFixture(t, webhook.Options{})
	group := "conv.kubego.test"
	v1, v2 := group+"/v1", group+"/v2"
	crd := installCRD(t, f.rc, group,
		crdVersion{name: "v1", storage: true, spec: map[string]any{"size": map[string]any{"type": "integer"}}},
		crdVersion{name: "v2", spec: map[string]any{"length": map[string]any{"type": "string"}}},
	)
	wh := conversion.New(conversion.Options{})
	conversion.Register(wh, v1, v2, gadgetV1ToV2)
	conversion.Register(wh, v2, v1, gadgetV2ToV1)
	rec := &recorder{next: wh}
	f.handle("/convert", rec)
	ctx := t.Context()
	if err := f.cp.InstallConversionWebhook(ctx, crd, f.url+"/convert", f.tls.ca.CertPEM); err != nil {
		t.Fatal(err)
	}
	atV1, atV2 := newWidgetAPI(f, group, "v1"), newWidgetAPI(f, group, "v2")
	// Right after a CRD changes, kube-apiserver may refuse a request with
	// 503 while it replaces the resource's storage.
	var err error
	eventually(t, "a created", func() bool {
		err = atV1.post(ctx, widgetBody(group, "v1", "a", `{"size":3}`), false).Error()
		return !apierrors.IsServiceUnavailable(err)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the webhook converts", func() bool {
		raw, err := atV2.get(ctx, "a").Raw()
		return err == nil && field(decode(t, raw), "spec", "length") == "3cm"
	})

	t.Run("created as v1, read as v2 and back", func(t *testing.T) {
		raw, err := atV2.get(ctx, "a").Raw()
		if err != nil {
			t.Fatal(err)
		}
		o := decode(t, raw)
		if o["apiVersion"] != v2 || o["kind"] != "Widget" || field(o, "spec", "length") != "3cm" || field(o, "metadata", "name") != "a" {
			t.Fatalf("as v2: %s", raw)
		}
		raw, err = atV1.get(ctx, "a").Raw()
		if err != nil {
			t.Fatal(err)
		}
		if o := decode(t, raw); o["apiVersion"] != v1 || field(o, "spec", "size") != float64(3) {
			t.Fatalf("as v1: %s", raw)
		}
	})
	t.Run("created as v2, stored as v1", func(t *testing.T) {
		rec.reset()
		if err := atV2.post(ctx, widgetBody(group, "v2", "c", `{"length":"7cm"}`), false).Error(); err != nil {
			t.Fatal(err)
		}
		if got := reviewed(t, rec, v1); !slices.Contains(got, "c") {
			t.Fatalf("converted to v1 for storage: %v, want c", got)
		}
		raw, err := atV1.get(ctx, "c").Raw()
		if err != nil {
			t.Fatal(err)
		}
		if o := decode(t, raw); field(o, "spec", "size") != float64(7) {
			t.Fatalf("as v1: %s", raw)
		}
	})
	t.Run("a failed conversion reaches the client with the function's message", func(t *testing.T) {
		err := atV2.post(ctx, widgetBody(group, "v2", "bad", `{"length":"7 inches"}`), false).Error()
		if err == nil || !contains(statusMessage(err), `spec.length "7 inches" is not in cm`) {
			t.Fatalf("err = %v, want the conversion function's message", err)
		}
	})

	// Switch the storage version to v2; b, created after the switch took
	// effect, is stored as v2 (its create is converted to v2 for storage).
	patch := `[{"op":"replace","path":"/spec/versions/0/storage","value":false},{"op":"replace","path":"/spec/versions/1/storage","value":true}]`
	if err := f.rc.Patch(types.JSONPatchType).Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name(crd).Body([]byte(patch)).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b stored as v2", func() bool {
		rec.reset()
		if err := atV1.post(ctx, widgetBody(group, "v1", "b", `{"size":4}`), false).Error(); apierrors.IsServiceUnavailable(err) {
			return false
		} else if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(reviewed(t, rec, v2), "b") {
			return true
		}
		if err := atV1.delete(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		eventually(t, "b deleted", func() bool { return atV1.get(ctx, "b").Error() != nil })
		return false
	})

	t.Run("a list mixing stored versions reads right at either version", func(t *testing.T) {
		rec.reset()
		raw, err := atV2.list(ctx).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if got := specs(t, raw, "length"); fmt.Sprint(got) != fmt.Sprint(map[string]any{"a": "3cm", "b": "4cm", "c": "7cm"}) {
			t.Fatalf("as v2: %v", got)
		}
		// kube-apiserver keeps a watch cache per served version and
		// converts each object as it enters them, so a list is usually
		// served without a webhook call; the result is the contract.
		t.Logf("list as v2 converted %v", reviewed(t, rec, v2))
		rec.reset()
		raw, err = atV1.list(ctx).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if got := specs(t, raw, "size"); fmt.Sprint(got) != fmt.Sprint(map[string]any{"a": float64(3), "b": float64(4), "c": float64(7)}) {
			t.Fatalf("as v1: %v", got)
		}
		t.Logf("list as v1 converted %v", reviewed(t, rec, v1))
	})
}
