package kubegotest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// servers returns a client of each server the stand-ins must satisfy:
// kube-apiserver (testenv) and fake.
func servers(t *testing.T) map[string]*client.Client {
	srv := fake.NewServer(fake.Options{})
	t.Cleanup(srv.Close)
	fc, err := client.NewForConfig(srv.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*client.Client{"fake": fc}
	if !testing.Short() {
		rc, err := client.NewForConfig(testenv.Shared(t).Config(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out["kube-apiserver"] = rc
	}
	return out
}

func TestStandInsWriteStatusTheServerAccepts(t *testing.T) {
	for server, c := range servers(t) {
		t.Run(server, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			ns := kubegotest.Namespace(t, c)
			if !strings.HasPrefix(ns, "teststandinswritestatustheserveraccepts") {
				t.Errorf("namespace %q is not named after the test", ns)
			}
			labels := map[string]string{"app": "x"}
			tmpl := corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			}
			always := *tmpl.DeepCopy()
			always.Spec.RestartPolicy = corev1.RestartPolicyAlways
			jobs := client.Typed[*batchv1.Job](c).Namespace(ns)
			three := int32(3)
			for _, tt := range []struct {
				name   string
				finish func(*batchv1.Job) (*batchv1.Job, error)
				want   batchv1.JobConditionType
			}{
				{"complete", func(j *batchv1.Job) (*batchv1.Job, error) { return kubegotest.CompleteJob(ctx, c, j) }, batchv1.JobComplete},
				{"failed", func(j *batchv1.Job) (*batchv1.Job, error) { return kubegotest.FailJob(ctx, c, j, "") }, batchv1.JobFailed},
			} {
				j, err := jobs.Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: tt.name}, Spec: batchv1.JobSpec{Completions: &three, Template: tmpl}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				j, err = tt.finish(j)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if last := j.Status.Conditions[len(j.Status.Conditions)-1]; last.Type != tt.want || last.Status != corev1.ConditionTrue {
					t.Errorf("%s: last condition %v", tt.name, last)
				}
				if _, err := tt.finish(j); err == nil {
					t.Errorf("%s: finishing a finished Job again was accepted", tt.name)
				}
			}
			deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
			d, err := deps.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
				Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: always,
			}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d, err = kubegotest.RollOutDeployment(ctx, c, d)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status.AvailableReplicas != 3 || d.Status.ObservedGeneration != d.Generation {
				t.Errorf("deployment status %+v", d.Status)
			}

			ev := &eventsv1.Event{
				ObjectMeta: metav1.ObjectMeta{Name: "web.1"}, EventTime: metav1.NewMicroTime(time.Now()),
				ReportingController: "kubego.io/test", ReportingInstance: "test-1", Action: "Roll", Reason: "RolledOut", Type: corev1.EventTypeNormal,
				Regarding: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web", UID: d.UID},
			}
			if _, err := client.Typed[*eventsv1.Event](c).Namespace(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := kubegotest.WaitForEvent(ctx, t, c, d, "RolledOut"); got.Action != "Roll" {
				t.Errorf("event %+v", got)
			}
		})
	}
}
