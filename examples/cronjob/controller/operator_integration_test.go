package controller_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/examples/cronjob/webhooks"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// shifted is the wall clock moved by an offset the test sets, so that the
// controller sees a minute boundary come without the test waiting for it.
type shifted struct{ offset atomic.Int64 }

func (s *shifted) Now() time.Time { return time.Now().Add(time.Duration(s.offset.Load())) }
func (s *shifted) AfterFunc(d time.Duration, f func()) clock.Timer {
	return clock.Real{}.AfterFunc(d, f)
}

// The operator on a real kube-apiserver: the CRD built from the Go types
// installed, both webhooks called by kube-apiserver over TLS (registered
// by URL) defaulting a CronJob and refusing a bad schedule, and the
// controller starting the Job of an every-minute CronJob's first run. The
// controller's clock is moved past the first minute boundary after the
// CronJob's creation, so the test waits for no minute.
func TestIntegrationOperatorOnARealServer(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	def, err := v1.CRD(apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.InstallCRDObjects(ctx, def); err != nil {
		t.Fatal(err)
	}
	caBundle, url := serveWebhooks(t)
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{v1.GroupVersion.Group}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"}},
	}}
	hooks := testenv.Webhooks{
		Name: "cronjob-it-" + strings.ToLower(t.Name()), URL: url, CABundle: caBundle,
		Mutating:   []testenv.AdmissionWebhook{{Name: "mcronjob.kb.io", Path: webhooks.DefaultPath, Rules: rules}},
		Validating: []testenv.AdmissionWebhook{{Name: "vcronjob.kb.io", Path: webhooks.ValidatePath, Rules: rules}},
	}
	if err := cp.InstallWebhooks(ctx, hooks); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.UninstallWebhooks(context.Background(), hooks.Name); err != nil {
			t.Error(err)
		}
	})

	clk := &shifted{}
	reg := client.NewRegistry()
	v1.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cp.Config(), Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.Client()
	nsObj, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cronjob-it-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name
	if _, err := controller.Setup(mgr, controller.Options{Clock: clk}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Start(t, mgr)
	cronJobs := client.Typed[*v1.CronJob](c).Namespace(ns)

	// kube-apiserver starts calling new webhooks shortly after they are
	// written: a dry run of a bad schedule is refused once it does.
	bad := cronJob("bad", "61 * * * *", nil)
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := cronJobs.Create(ctx, bad, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsInvalid(err) && strings.Contains(err.Error(), `admission webhook "vcronjob.kb.io" denied the request`) {
			return nil
		}
		return fmt.Errorf("dry run of a bad schedule: err = %v, want the webhook's refusal", err)
	})
	_, err = cronJobs.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.schedule") {
		t.Fatalf("bad schedule: err = %v, want Invalid on spec.schedule", err)
	}

	cj, err := cronJobs.Create(ctx, cronJob("every-minute", "* * * * *", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := cj.Spec; s.ConcurrencyPolicy != v1.AllowConcurrent || s.Suspend == nil || s.SuccessfulJobsHistoryLimit == nil || *s.SuccessfulJobsHistoryLimit != 3 || s.FailedJobsHistoryLimit == nil || *s.FailedJobsHistoryLimit != 1 {
		t.Fatalf("stored spec not defaulted by the webhook: %+v", s)
	}

	// The first run is the minute after creation; the controller's clock
	// moves a second past it, and a label change wakes the controller.
	run := cj.CreationTimestamp.Time.Truncate(time.Minute).Add(time.Minute)
	clk.offset.Store(int64(time.Until(run.Add(time.Second))))
	if _, err := cronJobs.Patch(ctx, cj.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"wake":"now"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("every-minute-%d", run.Unix())
	start := time.Now()
	var job *batchv1.Job
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		job, err = client.Typed[*batchv1.Job](c).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	t.Logf("Job %s created %s after the wake-up", name, time.Since(start))
	if !metav1.IsControlledBy(job, cj) || job.Annotations[controller.ScheduledTimeAnnotation] != run.UTC().Format(time.RFC3339) {
		t.Fatalf("Job owners %v, annotations %v", job.OwnerReferences, job.Annotations)
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		got, err := cronJobs.Get(ctx, cj.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		st := got.Status
		if st.LastScheduleTime == nil || !st.LastScheduleTime.Time.Equal(run) || len(st.Active) != 1 || st.Active[0].UID != job.UID {
			return fmt.Errorf("status %+v, want the Job of %s active", st, run)
		}
		return nil
	})
	jobs, err := client.Typed[*batchv1.Job](c).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 1 {
		t.Fatalf("%d Jobs, want the one of the first run", len(jobs.Items))
	}
}

// serveWebhooks serves the CronJob webhooks on loopback with a serving
// certificate of a fresh CA, for the rest of the test; it returns the CA's
// PEM and the server's base URL.
func serveWebhooks(t *testing.T) ([]byte, string) {
	t.Helper()
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	files, err := certs.Write(t.TempDir(), pair)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := webhook.New(webhook.Options{Listener: ln, CertFile: files.CertFile, KeyFile: files.KeyFile, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	webhooks.Register(srv, admission.Options{Logger: log})
	running := kubegotest.Start(t, srv)
	select {
	case <-srv.Serving():
	case <-running.Done():
		t.Fatal(errors.Join(errors.New("webhook server stopped"), running.Err()))
	}
	return ca.CertPEM, "https://" + srv.Addr().String()
}
