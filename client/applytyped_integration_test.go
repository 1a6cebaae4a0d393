package client_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/client"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/testenv"
)

// A custom resource's spec and status are applied from set functions by
// the client's own field manager; each Extract reads back exactly what was
// applied (the status with its time and keyed conditions), and a re-apply
// of either writes nothing.
func TestApplyFuncSpecAndStatusOfACustomResource(t *testing.T) {
	ctx := ctxFor(t)
	def, err := cronv1.CRD(apischema.Options{Descriptions: apischema.NoDescriptions})
	if err != nil {
		t.Fatal(err)
	}
	if err := testenv.Shared(t).InstallCRDObjects(ctx, def); err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	cronv1.Register(reg)
	e := setup(t, client.Options{Registry: reg, FieldManager: "cron-controller"})
	cjs := client.Typed[*cronv1.CronJob](e.c).Namespace(e.ns)
	ty, err := client.ApplyType[*cronv1.CronJob](e.c)
	if err != nil {
		t.Fatal(err)
	}

	spec := func(cj *cronv1.CronJob) {
		cj.Name = "nightly"
		cj.Labels["tier"] = ""
		cj.Spec.Schedule = "0 3 * * *"
		cj.Spec.Suspend = new(bool)
		cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "job", Image: "registry.example/job:1"}}
	}
	scheduled := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	status := func(cj *cronv1.CronJob) {
		cj.Name = "nightly"
		cj.Status.LastScheduleTime = &scheduled
		cj.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "", LastTransitionTime: scheduled}}
	}
	if _, err := cjs.ApplyFunc(ctx, spec, client.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	live, err := cjs.ApplyStatusFunc(ctx, status, client.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(*cronv1.CronJob)
		sub  string
	}{{"spec", spec, ""}, {"status", status, "status"}} {
		want, err := ty.Configure(c.set)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ty.ExtractSubresource(live, "cron-controller", c.sub)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			gj, _ := got.MarshalJSON()
			wj, _ := want.MarshalJSON()
			t.Fatalf("%s extracted %s\nwant %s", c.name, gj, wj)
		}
	}
	got, err := cjs.Extract(ctx, "nightly", "")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.Value(); v.Labels["tier"] != "" || v.Spec.Suspend == nil || *v.Spec.Suspend || v.Status.LastScheduleTime != nil {
		t.Fatalf("Extract of the client's manager: %+v", v)
	}

	again, err := cjs.ApplyFunc(ctx, spec, client.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err = cjs.ApplyStatusFunc(ctx, status, client.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != live.ResourceVersion {
		t.Fatalf("re-applies wrote: resourceVersion %s → %s", live.ResourceVersion, again.ResourceVersion)
	}
}
