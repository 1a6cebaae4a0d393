package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apischema/apischematest"
	"github.com/kubego/kubego/crd"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// goTypeCases run on a custom resource whose definition is built from its
// Go type (apischematest.Sample, by crd.Build): the declarations of the
// type are enforced alike on both servers.
func goTypeCases() []conformanceCase {
	return []conformanceCase{
		{"GoTypeDeclarationsRefuseViolations", goTypeViolations},
		{"GoTypeDefaultsPruningAndNulls", goTypeDefaults},
		{"GoTypeRandomObjectsRoundTrip", goTypeRoundTrip},
		{"GoTypeEmbeddedJobTemplateIsChecked", goTypeJobTemplate},
	}
}

// samples serves Sample from its Go type and returns its request builder.
func (e *env) samples() func(verb string) *rest.Request {
	e.Helper()
	def, err := crd.Build(crd.Definition{
		Group: apischematest.GroupVersion.Group, Kind: "Sample",
		Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[apischematest.Sample]()}},
	})
	if err != nil {
		e.Fatal(err)
	}
	body, _ := json.Marshal(def.Object)
	err = e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(body).Do(e.ctx).Error()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		e.Fatalf("create CRD: %v", err)
	}
	req := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group(apischematest.GroupVersion.Group).Version("v1").Namespace(e.ns).Resource("samples")
	}
	servedWithin(e, func(ctx context.Context) error { return req(http.MethodGet).Do(ctx).Error() })
	return req
}

func sampleJSON(e *env, s *apischematest.Sample, change func(map[string]any)) []byte {
	data, err := json.Marshal(s)
	if err != nil {
		e.Fatal(err)
	}
	if change == nil {
		return data
	}
	var u map[string]any
	_ = json.Unmarshal(data, &u)
	change(u["spec"].(map[string]any))
	data, _ = json.Marshal(u)
	return data
}

// Each declaration kind a structural schema carries refuses an object that
// breaks it (422), with a cause at the field's path, CEL rules included.
func goTypeViolations(e *env) {
	req := e.samples()
	must(e, req(http.MethodPost).Body(sampleJSON(e, apischematest.Valid("good"), nil)).Do(e.ctx).Error())
	for _, v := range apischematest.Violations() {
		err := req(http.MethodPost).Body(sampleJSON(e, apischematest.Valid("bad"), v.Change)).Do(e.ctx).Error()
		var causes []string
		found := false
		se, ok := err.(*apierrors.StatusError)
		if !ok || se.ErrStatus.Code != 422 {
			e.Errorf("%s: got %v, want 422 Invalid", v.Name, err)
			continue
		}
		if se.ErrStatus.Details != nil {
			for _, c := range se.ErrStatus.Details.Causes {
				causes = append(causes, c.Field+": "+c.Message)
				if c.Field == v.Field && strings.Contains(c.Message, v.Message) {
					found = true
				}
			}
		}
		if !found {
			e.Errorf("%s: causes %q, want %s with %q", v.Name, causes, v.Field, v.Message)
		}
	}
}

// Defaults are set, unknown fields pruned except under
// preserveUnknownFields, and a nullable field keeps its null.
func goTypeDefaults(e *env) {
	req := e.samples()
	body := sampleJSON(e, apischematest.Valid("d"), func(s map[string]any) {
		delete(s, "mode")
		s["unknown"] = "x"
		s["extra"] = map[string]any{"known": "k", "free": "kept"}
		s["note"] = nil
	})
	var u unstructured.Unstructured
	must(e, req(http.MethodPost).Body(body).Do(e.ctx).Into(&u))
	spec := u.Object["spec"].(map[string]any)
	if spec["mode"] != "fast" {
		e.Errorf("mode %v, want the default fast", spec["mode"])
	}
	if _, ok := spec["unknown"]; ok {
		e.Errorf("an unknown field was kept: %v", spec)
	}
	if x, _ := spec["extra"].(map[string]any); x["free"] != "kept" {
		e.Errorf("extra %v, want its unknown field kept", spec["extra"])
	}
	if n, ok := spec["note"]; !ok || n != nil {
		e.Errorf("note %v (present %v), want null kept", n, ok)
	}
}

// Random Samples (apimachinery's randfill) survive create and get
// unchanged.
func goTypeRoundTrip(e *env) {
	req := e.samples()
	f, r := apischematest.Filler(7), rand.New(rand.NewPCG(7, 7))
	for i := range 50 {
		want := apischematest.Fill(f, r, fmt.Sprintf("r%d", i))
		data, _ := json.Marshal(want)
		if err := req(http.MethodPost).Body(data).Do(e.ctx).Error(); err != nil {
			e.Fatalf("create %d: %v\n%s", i, err, data)
		}
		var u unstructured.Unstructured
		must(e, req(http.MethodGet).Name(want.Name).Do(e.ctx).Into(&u))
		var got apischematest.Sample
		raw, _ := u.MarshalJSON()
		must(e, json.Unmarshal(raw, &got))
		if !equality.Semantic.DeepEqual(got.Spec, want.Spec) || !equality.Semantic.DeepEqual(got.Status, want.Status) {
			b, _ := json.Marshal(got)
			e.Fatalf("object %d changed:\nsent %s\ngot  %s", i, data, b)
		}
	}
}

// A custom resource embedding batch/v1's JobTemplateSpec (the CronJob
// example) gets the Job template checked and defaulted as a Job's schema
// says: a port's protocol defaulted to TCP, an unknown protocol or a
// container without a name refused at the template's path, the pod
// template's labels kept.
func goTypeJobTemplate(e *env) {
	e.Helper()
	def, err := cronv1.CRD(apischema.Options{Descriptions: apischema.NoDescriptions})
	if err != nil {
		e.Fatal(err)
	}
	body, _ := json.Marshal(def.Object)
	if err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(body).Do(e.ctx).Error(); err != nil && !apierrors.IsAlreadyExists(err) {
		e.Fatalf("create CRD: %v", err)
	}
	req := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group(cronv1.GroupVersion.Group).Version("v1").Namespace(e.ns).Resource("cronjobs")
	}
	servedWithin(e, func(ctx context.Context) error { return req(http.MethodGet).Do(ctx).Error() })
	cronJob := func(name string, container map[string]any) []byte {
		data, _ := json.Marshal(map[string]any{
			"apiVersion": cronv1.GroupVersion.String(), "kind": "CronJob", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"schedule": "* * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
				"spec":     map[string]any{"restartPolicy": "Never", "containers": []any{container}},
			}}}},
		})
		return data
	}
	var u unstructured.Unstructured
	must(e, req(http.MethodPost).Body(cronJob("ok", map[string]any{"name": "c", "image": "busybox", "ports": []any{map[string]any{"containerPort": 80}}})).Do(e.ctx).Into(&u))
	tpl := u.Object["spec"].(map[string]any)["jobTemplate"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)
	port := tpl["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"].([]any)[0].(map[string]any)
	if port["protocol"] != "TCP" || u.Object["spec"].(map[string]any)["concurrencyPolicy"] != "Allow" {
		e.Errorf("defaults not set: port %v, spec %v", port, u.Object["spec"])
	}
	if labels, _ := tpl["metadata"].(map[string]any)["labels"].(map[string]any); labels["app"] != "x" {
		e.Errorf("the pod template's labels were pruned: %v", tpl["metadata"])
	}
	const c0 = "spec.jobTemplate.spec.template.spec.containers[0]"
	for _, tc := range []struct {
		container    map[string]any
		field, cause string
	}{
		{map[string]any{"image": "busybox"}, c0 + ".name", "Required value"},
		{map[string]any{"name": "c", "image": int64(5)}, c0 + ".image", "must be of type string"},
		{map[string]any{"name": "c", "ports": []any{map[string]any{"containerPort": 80, "protocol": "QUIC"}}}, c0 + ".ports[0].protocol", "Unsupported value"},
	} {
		err := req(http.MethodPost).Body(cronJob("bad", tc.container)).Do(e.ctx).Error()
		se, ok := err.(*apierrors.StatusError)
		if !ok || se.ErrStatus.Code != 422 || se.ErrStatus.Details == nil {
			e.Errorf("%s: got %v, want 422", tc.field, err)
			continue
		}
		found := false
		for _, c := range se.ErrStatus.Details.Causes {
			found = found || (c.Field == tc.field && strings.Contains(c.Message, tc.cause))
		}
		if !found {
			e.Errorf("%s: causes %+v, want %q", tc.field, se.ErrStatus.Details.Causes, tc.cause)
		}
	}
}

// servedWithin waits until get succeeds: a new definition is served a
// moment after it is created, longer on a loaded machine, so the bound
// is two minutes (a quiet machine: well under a second).
func servedWithin(e *env, get func(ctx context.Context) error) {
	e.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	kubegotest.Eventually(ctx, e, get)
}
