package fake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apply"
	kclient "github.com/kubego/kubego/client"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/rest"
)

// typedApplyCases apply Go-typed objects through package apply (client's
// ApplyFunc) and read back what a manager owns (Extract), on a built-in
// kind and on a custom resource whose definition is built from its Go
// type. They run on the fake (TestConformanceTypedApplyFake) and on
// kube-apiserver (TestConformanceTypedApplyReal).
func typedApplyCases() []conformanceCase {
	return []conformanceCase{
		{"TypedApplyOwnsZeroValuesSetOnPurpose", typedApplyZeroValues},
		{"TypedApplyReappliedDoesNotWrite", typedApplySteadyState},
		{"TypedApplyManagersShareListsByKey", typedApplySharedLists},
		{"TypedApplyCustomResource", typedApplyCustomResource},
	}
}

func TestConformanceTypedApplyFake(t *testing.T) {
	runCases(t, fakeTarget(rest.ContentTypeAuto), typedApplyCases())
}

// runCases runs cases on tg, as runConformance runs the suite.
func runCases(t *testing.T, tg target, cases []conformanceCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(newEnv(t, tg)) })
	}
}

func i32(v int32) *int32 { return &v }

// typedClient is a client over e's server with CronJob registered.
func (e *env) typedClient() *kclient.Client {
	reg := kclient.NewRegistry()
	cronv1.Register(reg)
	return kclient.New(e.c, kclient.Options{Registry: reg})
}

// webDeployment sets what a manager of a whole Deployment owns: with
// replicas 0, paused false and an empty annotation value set on purpose.
func webDeployment(d *appsv1.Deployment) {
	d.Name = "web"
	d.Annotations["note"] = ""
	d.Spec.Replicas = i32(0)
	d.Spec.Paused = false
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "app", Image: "registry.example/app:1",
		Ports:     []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}},
	}}
}

// Zero values the set function wrote are owned (they are in the manager's
// fieldsV1); the fields it did not write are not, though a Go struct
// holds a zero value there (strategy, revisionHistoryLimit, status,
// creationTimestamp, the container's other fields).
func typedApplyZeroValues(e *env) {
	deploys := kclient.Typed[*appsv1.Deployment](e.typedClient()).Namespace(e.ns)
	got, err := deploys.ApplyFunc(e.ctx, webDeployment, kclient.ApplyOptions{FieldManager: "web"})
	must(e, err)
	if got.Spec.Replicas == nil || *got.Spec.Replicas != 0 || got.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		e.Fatalf("stored spec %+v", got.Spec)
	}
	wantFields(e, got, "web", metav1.ManagedFieldsOperationApply, `{
		"f:metadata": {"f:annotations": {"f:note": {}}},
		"f:spec": {
			"f:paused": {}, "f:replicas": {}, "f:selector": {},
			"f:template": {
				"f:metadata": {"f:labels": {"f:app": {}}},
				"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {
					".": {}, "f:image": {}, "f:name": {},
					"f:ports": {"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}},
					"f:resources": {"f:limits": {"f:memory": {}}}
				}}}
			}
		}
	}`)
}

// Applying the same set function again to an unchanged object writes
// nothing (the resourceVersion stays), and Extract gives back exactly what
// was applied, as a configuration and as a typed value.
func typedApplySteadyState(e *env) {
	c := e.typedClient()
	deploys := kclient.Typed[*appsv1.Deployment](c).Namespace(e.ns)
	first, err := deploys.ApplyFunc(e.ctx, webDeployment, kclient.ApplyOptions{FieldManager: "web"})
	must(e, err)
	again, err := deploys.ApplyFunc(e.ctx, webDeployment, kclient.ApplyOptions{FieldManager: "web"})
	must(e, err)
	if again.ResourceVersion != first.ResourceVersion {
		e.Fatalf("re-apply wrote: resourceVersion %s → %s", first.ResourceVersion, again.ResourceVersion)
	}
	ty, err := kclient.ApplyType[*appsv1.Deployment](c)
	must(e, err)
	want, err := ty.Configure(webDeployment)
	must(e, err)
	got, err := deploys.Extract(e.ctx, "web", "web")
	must(e, err)
	if !got.Equal(want) {
		e.Fatalf("extracted %s\nwant      %s", jsonOf(e, got), jsonOf(e, want))
	}
	gv, err := got.Value()
	must(e, err)
	wv, err := want.Value()
	must(e, err)
	gv.Namespace, gv.APIVersion, gv.Kind = "", "", ""
	if !equality.Semantic.DeepEqual(gv, wv) {
		e.Fatalf("extracted value %+v\nwant %+v", gv, wv)
	}
	// Applying what was extracted changes nothing either.
	back, err := deploys.Apply(e.ctx, got, kclient.ApplyOptions{FieldManager: "web"})
	must(e, err)
	if back.ResourceVersion != first.ResourceVersion {
		e.Fatalf("applying the extracted configuration wrote: resourceVersion %s → %s", first.ResourceVersion, back.ResourceVersion)
	}
}

// Two managers each own one container and one label of the same
// Deployment; each one's Extract holds its own and nothing of the other's.
func typedApplySharedLists(e *env) {
	deploys := kclient.Typed[*appsv1.Deployment](e.typedClient()).Namespace(e.ns)
	owner := e.configMap("owner", nil, nil)
	_, err := deploys.ApplyFunc(e.ctx, func(d *appsv1.Deployment) {
		webDeployment(d)
		d.Labels["owner-a"] = "yes"
		d.Finalizers = []string{"example.com/a"}
		d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}
	}, kclient.ApplyOptions{FieldManager: "a"})
	must(e, err)
	sidecar := func(d *appsv1.Deployment) {
		d.Name = "web"
		d.Labels["owner-b"] = "yes"
		d.Finalizers = []string{"example.com/b"}
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Image: "registry.example/sidecar:1"}}
	}
	// The finalizers would keep the Deployment after its namespace is
	// deleted: the last step removes them.
	defer func() {
		_, err := deploys.Patch(e.ctx, "web", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		must(e, err)
	}()
	live, err := deploys.ApplyFunc(e.ctx, sidecar, kclient.ApplyOptions{FieldManager: "b"})
	must(e, err)
	if n := len(live.Spec.Template.Spec.Containers); n != 2 {
		e.Fatalf("%d containers, want both managers' 2", n)
	}
	ty, err := kclient.ApplyType[*appsv1.Deployment](e.typedClient())
	must(e, err)
	a, err := ty.Extract(live, "a")
	must(e, err)
	b, err := ty.Extract(live, "b")
	must(e, err)
	av, _ := a.Value()
	bv, _ := b.Value()
	if len(live.Finalizers) != 2 || len(live.OwnerReferences) != 1 {
		e.Fatalf("finalizers %v, owner references %v", live.Finalizers, live.OwnerReferences)
	}
	if fs := av.Finalizers; len(fs) != 1 || fs[0] != "example.com/a" || len(av.OwnerReferences) != 1 || av.OwnerReferences[0].UID != owner.UID {
		e.Fatalf("a extracted %s", jsonOf(e, a))
	}
	if fs := bv.Finalizers; len(fs) != 1 || fs[0] != "example.com/b" || len(bv.OwnerReferences) != 0 {
		e.Fatalf("b extracted %s", jsonOf(e, b))
	}
	if cs := av.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Name != "app" || av.Labels["owner-b"] != "" || av.Labels["owner-a"] != "yes" {
		e.Fatalf("a extracted %s", jsonOf(e, a))
	}
	if cs := bv.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Name != "sidecar" || bv.Labels["owner-a"] != "" || bv.Spec.Replicas != nil {
		e.Fatalf("b extracted %s", jsonOf(e, b))
	}
	wantB, err := ty.Configure(sidecar)
	must(e, err)
	if !b.Equal(wantB) {
		e.Fatalf("b extracted %s\nwant        %s", jsonOf(e, b), jsonOf(e, wantB))
	}
	again, err := deploys.ApplyFunc(e.ctx, sidecar, kclient.ApplyOptions{FieldManager: "b"})
	must(e, err)
	if again.ResourceVersion != live.ResourceVersion {
		e.Fatalf("re-apply of b wrote: resourceVersion %s → %s", live.ResourceVersion, again.ResourceVersion)
	}
}

// cronJobs serves CronJob from its Go type.
func (e *env) cronJobs() {
	e.Helper()
	u, err := cronv1.CRD(apischema.Options{Descriptions: apischema.NoDescriptions})
	must(e, err)
	body, err := u.MarshalJSON()
	must(e, err)
	err = e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(body).Do(e.ctx).Error()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		e.Fatalf("create CRD: %v", err)
	}
	servedWithin(e, func(ctx context.Context) error {
		return e.c.Verb(http.MethodGet).Group(cronv1.GroupVersion.Group).Version("v1").Namespace(e.ns).Resource("cronjobs").Do(ctx).Error()
	})
}

// A custom resource applies the same way: suspend false is owned, the
// concurrencyPolicy the server defaults is not, and a re-apply writes
// nothing.
func typedApplyCustomResource(e *env) {
	e.cronJobs()
	c := e.typedClient()
	cjs := kclient.Typed[*cronv1.CronJob](c).Namespace(e.ns)
	set := func(cj *cronv1.CronJob) {
		cj.Name = "nightly"
		cj.Spec.Schedule = "0 3 * * *"
		cj.Spec.Suspend = new(bool)
		cj.Spec.SuccessfulJobsHistoryLimit = i32(0)
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "job", Image: "registry.example/job:1"}}
		cj.Spec.JobTemplate.Spec.BackoffLimit = i32(0)
		cj.Spec.JobTemplate.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
		}}}
	}
	first, err := cjs.ApplyFunc(e.ctx, set, kclient.ApplyOptions{FieldManager: "cron"})
	must(e, err)
	if first.Spec.ConcurrencyPolicy != cronv1.AllowConcurrent || first.Spec.Suspend == nil || *first.Spec.Suspend {
		e.Fatalf("stored spec %+v", first.Spec)
	}
	fields := fieldsOf(e, first, "cron", metav1.ManagedFieldsOperationApply)
	spec, _ := fields["f:spec"].(map[string]any)
	for _, f := range []string{"f:schedule", "f:suspend", "f:successfulJobsHistoryLimit", "f:jobTemplate"} {
		if _, ok := spec[f]; !ok {
			e.Fatalf("%s not owned: %s", f, jsonOf(e, fields))
		}
	}
	for _, f := range []string{"f:concurrencyPolicy", "f:failedJobsHistoryLimit", "f:startingDeadlineSeconds"} {
		if _, ok := spec[f]; ok {
			e.Fatalf("%s owned: %s", f, jsonOf(e, fields))
		}
	}
	if _, ok := fields["f:status"]; ok {
		e.Fatalf("status owned: %s", jsonOf(e, fields))
	}
	again, err := cjs.ApplyFunc(e.ctx, set, kclient.ApplyOptions{FieldManager: "cron"})
	must(e, err)
	if again.ResourceVersion != first.ResourceVersion {
		e.Fatalf("re-apply wrote: resourceVersion %s → %s", first.ResourceVersion, again.ResourceVersion)
	}
	ty, err := apply.TypeOf[*cronv1.CronJob]()
	must(e, err)
	want, err := ty.Configure(set)
	must(e, err)
	got, err := ty.Extract(again, "cron")
	must(e, err)
	if !got.Equal(want) {
		e.Fatalf("extracted %s\nwant      %s", jsonOf(e, got), jsonOf(e, want))
	}
}

func jsonOf(e *env, v any) string {
	e.Helper()
	data, err := json.Marshal(v)
	must(e, err)
	return string(data)
}
