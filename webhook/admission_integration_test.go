package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

// Widget is the Go type of the admission test's CRD.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Size  int    `json:"size,omitempty"`
	Color string `json:"color,omitempty"`
}

var widgetDefaults = admission.DefaulterFunc[*Widget](func(ctx context.Context, w *Widget) error {
	if w.Spec.Color == "" {
		w.Spec.Color = "blue"
	}
	if w.Spec.Size == 0 {
		w.Spec.Size = 1
	}
	return nil
})

var widgetRules = admission.ValidatorFuncs[*Widget]{
	Create: func(ctx context.Context, w *Widget) (admission.Warnings, error) {
		var warn admission.Warnings
		if w.Spec.Color == "red" {
			warn = append(warn, "red widgets fade")
		}
		if w.Spec.Size > 10 {
			return warn, fmt.Errorf("spec.size must be at most 10, got %d", w.Spec.Size)
		}
		return warn, nil
	},
	Update: func(ctx context.Context, old, w *Widget) (admission.Warnings, error) {
		if w.Spec.Size < old.Spec.Size {
			return nil, fmt.Errorf("spec.size may not shrink (from %d to %d)", old.Spec.Size, w.Spec.Size)
		}
		return nil, nil
	},
	Delete: func(ctx context.Context, w *Widget) (admission.Warnings, error) {
		if w.Labels["protected"] == "true" {
			return nil, errors.New("widget " + w.Name + " is protected")
		}
		return nil, nil
	},
}

// A CRD with a defaulting and a validating webhook, called by
// kube-apiserver: objects come back defaulted, invalid ones are refused
// with the validator's message, warnings reach the client, an update is
// judged against the old object and a delete is validated.
func TestIntegrationAdmissionWebhooks(t *testing.T) {
	f := newFixture(t, webhook.Options{})
	group := "adm.kubego.test"
	installCRD(t, f.rc, group, crdVersion{name: "v1", storage: true, spec: map[string]any{
		"size": map[string]any{"type": "integer"}, "color": map[string]any{"type": "string"},
	}})
	kind := schema.GroupKind{Group: group, Kind: "Widget"}
	f.handle("/default", admission.New(admission.Defaulting[Widget](widgetDefaults, admission.TypedOptions{Kind: kind}), admission.Options{}))
	f.handle("/validate", admission.New(admission.Validating[Widget](widgetRules, admission.TypedOptions{Kind: kind}), admission.Options{}))
	f.install(t, testenv.Webhooks{
		Name:       "adm-widgets",
		Mutating:   []testenv.AdmissionWebhook{{Name: "default.widgets.adm.kubego.test", Path: "/default", Rules: rules(group, "widgets")}},
		Validating: []testenv.AdmissionWebhook{{Name: "validate.widgets.adm.kubego.test", Path: "/validate", Rules: rules(group, "widgets")}},
	})
	ctx := t.Context()
	widgets := newWidgetAPI(f, group, "v1")
	eventually(t, "both webhooks called", func() bool {
		widgets.post(ctx, widgetBody(group, "v1", "probe", `{}`), true)
		return f.called("/default") > 0 && f.called("/validate") > 0
	})

	t.Run("created objects come back defaulted", func(t *testing.T) {
		res := widgets.post(ctx, widgetBody(group, "v1", "plain", `{}`), false)
		if err := res.Error(); err != nil {
			t.Fatal(err)
		}
		raw, _ := res.Raw()
		o := decode(t, raw)
		if field(o, "spec", "color") != "blue" || field(o, "spec", "size") != float64(1) {
			t.Fatalf("spec %v, want color blue and size 1", field(o, "spec"))
		}
	})
	t.Run("an invalid object is refused with the validator's message", func(t *testing.T) {
		err := widgets.post(ctx, widgetBody(group, "v1", "huge", `{"size":11}`), false).Error()
		want := `admission webhook "validate.widgets.adm.kubego.test" denied the request: spec.size must be at most 10, got 11`
		if !apierrors.IsForbidden(err) || statusMessage(err) != want {
			t.Fatalf("err = %v, want Forbidden %q", err, want)
		}
	})
	t.Run("warnings reach the client", func(t *testing.T) {
		res := widgets.post(ctx, widgetBody(group, "v1", "red", `{"color":"red"}`), false)
		if err := res.Error(); err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, w := range res.Warnings() {
			texts = append(texts, w.Text)
		}
		if !slices.Contains(texts, "red widgets fade") {
			t.Fatalf("warnings %q, want red widgets fade", texts)
		}
	})
	t.Run("an update sees the old object", func(t *testing.T) {
		if err := widgets.patch(ctx, "plain", `{"spec":{"size":5}}`).Error(); err != nil {
			t.Fatalf("growing: %v", err)
		}
		err := widgets.patch(ctx, "plain", `{"spec":{"size":2}}`).Error()
		if !strings.HasSuffix(statusMessage(err), "spec.size may not shrink (from 5 to 2)") {
			t.Fatalf("shrinking: err = %v, want the validator's message with the old size", err)
		}
	})
	t.Run("a delete is validated", func(t *testing.T) {
		if err := widgets.patch(ctx, "plain", `{"metadata":{"labels":{"protected":"true"}}}`).Error(); err != nil {
			t.Fatal(err)
		}
		err := widgets.delete(ctx, "plain")
		if !strings.HasSuffix(statusMessage(err), "widget plain is protected") {
			t.Fatalf("err = %v, want the validator's refusal", err)
		}
		if err := widgets.patch(ctx, "plain", `{"metadata":{"labels":{"protected":null}}}`).Error(); err != nil {
			t.Fatal(err)
		}
		if err := widgets.delete(ctx, "plain"); err != nil {
			t.Fatalf("unprotected delete: %v", err)
		}
	})
}

// widgetAPI sends requests for the widgets of one group and version in
// namespace default.
type widgetAPI struct {
	f              *fixture
	group, version string
	namespace      string
}

func newWidgetAPI(f *fixture, group, version string) *widgetAPI {
	return &widgetAPI{f: f, group: group, version: version, namespace: "default"}
}

func (r *widgetAPI) post(ctx context.Context, body []byte, dryRun bool) rest.Result {
	req := r.f.rc.Post().Group(r.group).Version(r.version).Namespace(r.namespace).Resource("widgets").Body(body)
	if dryRun {
		req = req.Param("dryRun", "All")
	}
	return req.Do(ctx)
}

func (r *widgetAPI) patch(ctx context.Context, name, merge string) rest.Result {
	return r.f.rc.Patch(types.MergePatchType).Group(r.group).Version(r.version).Namespace(r.namespace).Resource("widgets").Name(name).Body([]byte(merge)).Do(ctx)
}

func (r *widgetAPI) get(ctx context.Context, name string) rest.Result {
	return r.f.rc.Get().Group(r.group).Version(r.version).Namespace(r.namespace).Resource("widgets").Name(name).Do(ctx)
}

func (r *widgetAPI) list(ctx context.Context) rest.Result {
	return r.f.rc.Get().Group(r.group).Version(r.version).Namespace(r.namespace).Resource("widgets").Do(ctx)
}

func (r *widgetAPI) delete(ctx context.Context, name string) error {
	return r.f.rc.Delete().Group(r.group).Version(r.version).Namespace(r.namespace).Resource("widgets").Name(name).Do(ctx).Error()
}
