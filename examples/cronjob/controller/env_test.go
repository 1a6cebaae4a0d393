package controller_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/client"
	kubecontroller "github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/examples/cronjob/webhooks"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/webhook/admission"
)

// hooks is the base URL the fake calls the webhooks at, in process.
const hooks = "https://cronjob-webhooks.test"

// env is the operator on the in-memory API server, inside a
// testing/synctest bubble: the CRD from the Go types, both webhooks
// registered as a cluster would have them, the controller in a Manager.
// Nothing runs kube-controller-manager: the test finishes Jobs itself.
type env struct {
	t        *testing.T
	ctrl     *kubecontroller.Controller
	c        *client.Client
	cronJobs *client.Resource[*v1.CronJob]
	jobs     *client.Resource[*batchv1.Job]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := fake.NewServer(fake.Options{Webhooks: map[string]http.Handler{
		hooks + webhooks.DefaultPath:  admission.New(webhooks.Defaulting(), admission.Options{}),
		hooks + webhooks.ValidatePath: admission.New(webhooks.Validating(), admission.Options{}),
	}})
	t.Cleanup(srv.Close)
	reg := client.NewRegistry()
	v1.Register(reg)
	mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.Client()
	def, err := v1.CRD(apischema.Options{Descriptions: apischema.NoDescriptions})
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(t.Context(), dynamic.New(c.REST(), dynamic.Options{}), []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	registerWebhooks(t, c)
	ctrl, err := controller.Setup(mgr, controller.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kubegotest.Start(t, mgr)
	e := &env{
		t: t, ctrl: ctrl, c: c,
		cronJobs: client.Typed[*v1.CronJob](c).Namespace("default"),
		jobs:     client.Typed[*batchv1.Job](c).Namespace("default"),
	}
	return e
}

// registerWebhooks writes the webhook configurations the operator needs.
func registerWebhooks(t *testing.T, c *client.Client) {
	t.Helper()
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{v1.GroupVersion.Group}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"}},
	}}
	none := admissionregistrationv1.SideEffectClassNone
	url := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := hooks + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u}
	}
	if _, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).Create(t.Context(), &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "cronjob"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mcronjob.kb.io", ClientConfig: url(webhooks.DefaultPath), Rules: rules,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).Create(t.Context(), &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "cronjob"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "vcronjob.kb.io", ClientConfig: url(webhooks.ValidatePath), Rules: rules,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// cronJob is a CronJob of a one-container Job template, changed by edit.
func cronJob(name, schedule string, edit func(*v1.CronJobSpec)) *v1.CronJob {
	cj := &v1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.CronJobSpec{
			Schedule: schedule,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					Containers:    []corev1.Container{{Name: "hello", Image: "registry.example/hello:1"}},
				}}},
			},
		},
	}
	if edit != nil {
		edit(&cj.Spec)
	}
	return cj
}

func (e *env) create(cj *v1.CronJob) *v1.CronJob {
	e.t.Helper()
	got, err := e.cronJobs.Create(e.t.Context(), cj, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	kubegotest.Settle(e.t, e.ctrl)
	return got
}

func (e *env) get(name string) *v1.CronJob {
	e.t.Helper()
	cj, err := e.cronJobs.Get(e.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cj
}

// update changes the spec of CronJob name, and lets the controller react.
func (e *env) update(name string, edit func(*v1.CronJobSpec)) {
	e.t.Helper()
	cj := e.get(name)
	edit(&cj.Spec)
	if _, err := e.cronJobs.Update(e.t.Context(), cj, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	kubegotest.Settle(e.t, e.ctrl)
}

// sleepUntil moves fake time to t and lets the controller react.
func (e *env) sleepUntil(t time.Time) {
	e.t.Helper()
	time.Sleep(time.Until(t))
	kubegotest.Settle(e.t, e.ctrl)
}

// jobNames lists the Jobs of the namespace, sorted.
func (e *env) jobNames() []string {
	e.t.Helper()
	list, err := e.jobs.List(e.t.Context(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, j := range list.Items {
		names = append(names, j.Name)
	}
	slices.Sort(names)
	return names
}

// wantJobs fails unless exactly the Jobs of these runs of CronJob cj exist.
func (e *env) wantJobs(what, cj string, runs ...time.Time) {
	e.t.Helper()
	var want []string
	for _, r := range runs {
		want = append(want, jobName(cj, r))
	}
	slices.Sort(want)
	if got := e.jobNames(); !slices.Equal(got, want) {
		e.t.Fatalf("%s (at %s): Jobs %v, want %v", what, time.Now().UTC().Format(time.DateTime), got, want)
	}
}

func jobName(cj string, run time.Time) string { return fmt.Sprintf("%s-%d", cj, run.Unix()) }

// finish marks a Job finished as the Job controller would (kubegotest's
// stand-ins write the status kube-apiserver accepts).
func (e *env) finish(name string, cond batchv1.JobConditionType) {
	e.t.Helper()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	var err error
	if cond == batchv1.JobComplete {
		_, err = kubegotest.CompleteJob(e.t.Context(), e.c, job)
	} else {
		_, err = kubegotest.FailJob(e.t.Context(), e.c, job, "")
	}
	if err != nil {
		e.t.Fatal(err)
	}
	kubegotest.Settle(e.t, e.ctrl)
}

// wantStatus fails unless CronJob name's status lists exactly the Jobs of
// the active runs and last schedule time last.
func (e *env) wantStatus(name string, last time.Time, active ...time.Time) {
	e.t.Helper()
	st := e.get(name).Status
	var got []string
	for _, ref := range st.Active {
		if ref.Kind != "Job" || ref.APIVersion != "batch/v1" || ref.Namespace != "default" || ref.UID == "" {
			e.t.Errorf("active reference %+v is not a whole Job reference", ref)
		}
		got = append(got, ref.Name)
	}
	var want []string
	for _, r := range active {
		want = append(want, jobName(name, r))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		e.t.Fatalf("status.active %v, want %v", got, want)
	}
	switch {
	case last.IsZero() && st.LastScheduleTime != nil:
		e.t.Fatalf("status.lastScheduleTime %s, want none", st.LastScheduleTime)
	case !last.IsZero() && (st.LastScheduleTime == nil || !st.LastScheduleTime.Time.Equal(last)):
		e.t.Fatalf("status.lastScheduleTime %v, want %s", st.LastScheduleTime, last.UTC())
	}
}

// hour returns the n-th full hour after t.
func hour(t time.Time, n int) time.Time {
	return t.Truncate(time.Hour).Add(time.Duration(n) * time.Hour)
}

// events returns the reasons of the Events about cj.
func (e *env) events(cj *v1.CronJob) string {
	e.t.Helper()
	evs, err := kubegotest.CoreEvents(e.t.Context(), e.c, cj)
	if err != nil {
		e.t.Fatal(err)
	}
	var reasons []string
	for _, ev := range evs {
		reasons = append(reasons, ev.Reason)
	}
	return strings.Join(reasons, ",")
}

// wantCondition fails unless CronJob name's condition typ has status st
// and reason.
func (e *env) wantCondition(name, typ string, st metav1.ConditionStatus, reason string) {
	e.t.Helper()
	for _, c := range e.get(name).Status.Conditions {
		if c.Type == typ {
			if c.Status != st || c.Reason != reason {
				e.t.Fatalf("condition %s: %s %s (%s), want %s %s", typ, c.Status, c.Reason, c.Message, st, reason)
			}
			return
		}
	}
	e.t.Fatalf("no condition %s", typ)
}
