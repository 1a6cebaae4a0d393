package apischema_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/randfill"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apischema/apischematest"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var (
	cronJobs = cronv1.GroupVersion.WithResource("cronjobs")
	samples  = apischematest.GroupVersion.WithResource("samples")
)

// install builds and installs the definition of each Definition on the
// shared control plane and returns a dynamic client.
func install(t *testing.T, ctx context.Context, defs ...crd.Definition) *dynamic.Client {
	t.Helper()
	cp := testenv.Shared(t)
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, d := range defs {
		u, err := crd.Build(d)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	if err := crd.Install(ctx, dc, objs, crd.InstallOptions{}); err != nil {
		t.Fatalf("Install: %v", err)
	}
	return dc
}

func toUnstructured(t *testing.T, v any) *unstructured.Unstructured {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return u
}

func fromUnstructured[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	data, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func cronJob(name string) *cronv1.CronJob {
	return &cronv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: cronv1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: cronv1.CronJobSpec{
			Schedule: "*/1 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "hello"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					Containers:    []corev1.Container{{Name: "hello", Image: "busybox", Args: []string{"date"}}},
				},
			}}},
		},
	}
}

// statusCauses returns the causes of a 422, as "field: message".
func statusCauses(t *testing.T, err error) []string {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		t.Fatalf("got %v, want a 422 with causes", err)
	}
	var out []string
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out
}

func wantCause(t *testing.T, err error, field, msg string) {
	t.Helper()
	for _, c := range statusCauses(t, err) {
		if strings.HasPrefix(c, field+": ") && strings.Contains(c, msg) {
			return
		}
	}
	t.Fatalf("got causes %q, want %s with %q", statusCauses(t, err), field, msg)
}

// The CronJob definition, with the JobTemplateSpec of batch/v1 embedded, is
// accepted, its defaults set, and a job template with an unknown field or
// a field of the wrong type refused at create with the field's path.
func TestIntegrationCronJobDefinitionChecksTheJobTemplate(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dc := install(t, ctx, cronv1.Definition())
	res := dc.Resource(cronJobs).Namespace("default")

	created, err := res.Create(ctx, toUnstructured(t, cronJob("hello")), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a valid CronJob: %v", err)
	}
	if p, _, _ := unstructured.NestedString(created.Object, "spec", "concurrencyPolicy"); p != "Allow" {
		t.Errorf("concurrencyPolicy %q, want the default Allow", p)
	}
	if labels, _, _ := unstructured.NestedStringMap(created.Object, "spec", "jobTemplate", "spec", "template", "metadata", "labels"); labels["app"] != "hello" {
		t.Errorf("the pod template's labels were pruned: %v", created.Object["spec"])
	}

	containers := func(u *unstructured.Unstructured) map[string]any {
		m := u.Object
		for _, k := range []string{"spec", "jobTemplate", "spec", "template", "spec"} {
			m = m[k].(map[string]any)
		}
		return m["containers"].([]any)[0].(map[string]any)
	}
	const c0 = "spec.jobTemplate.spec.template.spec.containers[0]"

	unknown := toUnstructured(t, cronJob("unknown-field"))
	containers(unknown)["imagee"] = "busybox"
	_, err = res.Create(ctx, unknown, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	if err == nil || !strings.Contains(err.Error(), `unknown field "`+c0+`.imagee"`) {
		t.Errorf("unknown field in the template, strict: got %v, want it refused naming %s.imagee", err, c0)
	}

	for _, tc := range []struct {
		name   string
		change func(u *unstructured.Unstructured)
		field  string
		msg    string
	}{
		{"image of the wrong type", func(u *unstructured.Unstructured) { containers(u)["image"] = int64(5) }, c0 + ".image", `must be of type string`},
		{"container without a name", func(u *unstructured.Unstructured) { delete(containers(u), "name") }, c0 + ".name", "Required value"},
		{"port protocol outside its enum", func(u *unstructured.Unstructured) {
			containers(u)["ports"] = []any{map[string]any{"containerPort": int64(80), "protocol": "QUIC"}}
		}, c0 + ".ports[0].protocol", "Unsupported value"},
		{"concurrencyPolicy outside its enum", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "Sometimes", "spec", "concurrencyPolicy")
		}, "spec.concurrencyPolicy", "Unsupported value"},
		{"negative history limit", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(-1), "spec", "failedJobsHistoryLimit")
		}, "spec.failedJobsHistoryLimit", "greater than or equal to 0"},
		{"no schedule", func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, "spec", "schedule") }, "spec.schedule", "Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := toUnstructured(t, cronJob("bad"))
			tc.change(u)
			_, err := res.Create(ctx, u, metav1.CreateOptions{})
			wantCause(t, err, tc.field, tc.msg)
		})
	}
}

// The definition kube-apiserver accepts without descriptions fits a
// client-side apply's last-applied annotation.
func TestCronJobDefinitionWithoutDescriptionsFitsTheAnnotation(t *testing.T) {
	u, err := cronv1.CRD(apischema.Options{Descriptions: apischema.NoDescriptions})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := u.MarshalJSON()
	if len(data) >= 262144 {
		t.Fatalf("%d bytes", len(data))
	}
	full, _ := cronv1.CRD(apischema.Options{})
	fullData, _ := full.MarshalJSON()
	t.Logf("CronJob definition: %d bytes with descriptions, %d without", len(fullData), len(data))
}

func sampleDefinition() crd.Definition {
	return crd.Definition{Group: apischematest.GroupVersion.Group, Kind: "Sample", Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[apischematest.Sample]()}}}
}

// Every declaration of Sample refuses an object that breaks it, with the
// field path and message a user expects; CEL rules included.
func TestIntegrationSampleDeclarationsRefuseViolations(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dc := install(t, ctx, sampleDefinition())
	res := dc.Resource(samples).Namespace("default")
	if _, err := res.Create(ctx, toUnstructured(t, apischematest.Valid("good")), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a valid Sample: %v", err)
	}
	for _, tc := range apischematest.Violations() {
		t.Run(tc.Name, func(t *testing.T) {
			u := toUnstructured(t, apischematest.Valid("bad"))
			tc.Change(u.Object["spec"].(map[string]any))
			_, err := res.Create(ctx, u, metav1.CreateOptions{})
			wantCause(t, err, tc.Field, tc.Message)
		})
	}
}

// Random Samples and CronJobs survive create and get unchanged: nothing the
// Go types hold is pruned or rewritten.
func TestIntegrationRandomObjectsRoundTrip(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 50
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	dc := install(t, ctx, sampleDefinition(), cronv1.Definition())
	start := time.Now()
	roundTripSamples(t, ctx, dc.Resource(samples).Namespace("default"), n, 1)
	roundTripCronJobs(t, ctx, dc.Resource(cronJobs).Namespace("default"), n, 2)
	t.Logf("%d Samples and %d CronJobs created and read back in %v", n, n, time.Since(start))
}

type resourceClient interface {
	Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, subresources ...string) (*unstructured.Unstructured, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions, subresources ...string) (*unstructured.Unstructured, error)
}

func roundTripSamples(t *testing.T, ctx context.Context, res resourceClient, n int, seed uint64) {
	t.Helper()
	f, r := apischematest.Filler(seed), rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		want := apischematest.Fill(f, r, fmt.Sprintf("random-%d-%d", seed, i))
		if _, err := res.Create(ctx, toUnstructured(t, want), metav1.CreateOptions{}); err != nil {
			data, _ := json.Marshal(want)
			t.Fatalf("create %d: %v\n%s", i, err, data)
		}
		u, err := res.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := fromUnstructured[apischematest.Sample](t, u)
		if !equality.Semantic.DeepEqual(got.Spec, want.Spec) || !equality.Semantic.DeepEqual(got.Status, want.Status) {
			a, _ := json.Marshal(want)
			b, _ := json.Marshal(got)
			t.Fatalf("object %d changed:\nsent %s\ngot  %s", i, a, b)
		}
	}
}

func roundTripCronJobs(t *testing.T, ctx context.Context, res resourceClient, n int, seed uint64) {
	t.Helper()
	f := apischematest.Filler(seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		want := fillCronJob(f, r, fmt.Sprintf("random-%d-%d", seed, i))
		if _, err := res.Create(ctx, toUnstructured(t, want), metav1.CreateOptions{}); err != nil {
			data, _ := json.Marshal(want)
			t.Fatalf("create %d: %v\n%s", i, err, data)
		}
		u, err := res.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := fromUnstructured[cronv1.CronJob](t, u)
		if !equality.Semantic.DeepEqual(got.Spec, want.Spec) {
			a, _ := json.Marshal(want.Spec)
			b, _ := json.Marshal(got.Spec)
			t.Fatalf("CronJob %d changed:\nsent %s\ngot  %s", i, a, b)
		}
	}
}

// fillCronJob fills a CronJob's spec at random, its job template with a
// random but valid pod (containers named uniquely, enums within their
// values).
func fillCronJob(f *randfill.Filler, r *rand.Rand, name string) *cronv1.CronJob {
	c := cronJob(name)
	c.Namespace = ""
	f.Fill(&c.Spec.StartingDeadlineSeconds)
	f.Fill(&c.Spec.Suspend)
	f.Fill(&c.Spec.SuccessfulJobsHistoryLimit)
	f.Fill(&c.Spec.FailedJobsHistoryLimit)
	for _, p := range []*int32{c.Spec.SuccessfulJobsHistoryLimit, c.Spec.FailedJobsHistoryLimit} {
		if p != nil && *p < 0 {
			*p = -*p
		}
	}
	if p := c.Spec.StartingDeadlineSeconds; p != nil && *p < 0 {
		*p = -*p
	}
	c.Spec.ConcurrencyPolicy = []cronv1.ConcurrencyPolicy{"Allow", "Forbid", "Replace"}[r.IntN(3)]
	c.Spec.Schedule = fmt.Sprintf("%d * * * *", r.IntN(60))
	tpl := &c.Spec.JobTemplate
	f.Fill(&tpl.Labels)
	f.Fill(&tpl.Annotations)
	f.Fill(&tpl.Spec.Parallelism)
	f.Fill(&tpl.Spec.Completions)
	f.Fill(&tpl.Spec.BackoffLimit)
	f.Fill(&tpl.Spec.ActiveDeadlineSeconds)
	pod := &tpl.Spec.Template
	f.Fill(&pod.Labels)
	pod.Spec.RestartPolicy = []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}[r.IntN(2)]
	f.Fill(&pod.Spec.NodeSelector)
	f.Fill(&pod.Spec.ServiceAccountName)
	f.Fill(&pod.Spec.TerminationGracePeriodSeconds)
	pod.Spec.Containers = nil
	for j := range 1 + r.IntN(3) {
		ctr := corev1.Container{Name: fmt.Sprintf("c%d", j)}
		f.Fill(&ctr.Image)
		f.Fill(&ctr.Args)
		f.Fill(&ctr.Command)
		f.Fill(&ctr.Resources.Limits)
		f.Fill(&ctr.Resources.Requests)
		ctr.ImagePullPolicy = []corev1.PullPolicy{"", corev1.PullAlways, corev1.PullNever, corev1.PullIfNotPresent}[r.IntN(4)]
		for k := range r.IntN(3) {
			ctr.Ports = append(ctr.Ports, corev1.ContainerPort{ContainerPort: int32(1000 + k), Protocol: []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP}[r.IntN(2)]})
		}
		for k := range r.IntN(3) {
			ev := corev1.EnvVar{Name: fmt.Sprintf("E%d", k)}
			f.Fill(&ev.Value)
			ctr.Env = append(ctr.Env, ev)
		}
		pod.Spec.Containers = append(pod.Spec.Containers, ctr)
	}
	return c
}
