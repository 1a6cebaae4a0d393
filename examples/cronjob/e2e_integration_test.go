package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/install"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// expectedUnused are the derived rules a short run has no occasion to
// use, each with the reason it is granted.
var expectedUnused = map[string]string{
	"list batch/jobs": "informers list only when the server cannot stream a watch's initial state",
	"list batch.tutorial.kubebuilder.io/cronjobs":   "informers list only when the server cannot stream; the storage migration lists when it has work",
	"get batch.tutorial.kubebuilder.io/cronjobs":    "the storage migration reads an object again after a conflict",
	"update batch.tutorial.kubebuilder.io/cronjobs": "the storage migration rewrites objects when the storage version changed",
	"get batch/jobs":             "a Job that already exists (a stale cache) is read back",
	"delete batch/jobs":          "the history limits prune finished Jobs",
	"patch events.k8s.io/events": "an Event that repeats is patched into a series",
	"patch apiextensions.k8s.io/customresourcedefinitions":         "the storage migration records its progress on the definition",
	"update apiextensions.k8s.io/customresourcedefinitions/status": "the storage migration drops old storedVersions",
	"update /secrets":                                    "the CA Secret is updated when the CA or the bundle rotates",
	"watch coordination.k8s.io/leases":                   "a replica that does not lead watches the Lease, to take it at once when it is released",
	"create coordination.k8s.io/leases":                  "the Lease is created by the first candidate when absent",
	"create /secrets":                                    "the CA Secret is created when absent",
	"get apiextensions.k8s.io/customresourcedefinitions": "the caBundle of CRD conversion webhooks and the storage migration",
}

// The installation the binary prints is applied to kube-apiserver (RBAC
// enforced); the operator then runs as a separate process authenticated
// as its ServiceAccount (a TokenRequest token, not an admin credential)
// with only the derived rules; kube-apiserver calls its webhooks over TLS
// with the certificate the operator provisioned itself; a CronJob is
// defaulted, validated and reconciled into a Job. No request of the
// operator is denied, every granted rule it did not use has a reason, and
// uninstall leaves the cluster as it was.
func TestIntegrationEndToEndAsItsServiceAccount(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := cp.WriteKubeconfig(admin); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "cronjob")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the operator: %v\n%s", err, out)
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	v1.Register(reg)
	c := client.New(rc, client.Options{Registry: reg})

	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	ns := "cronjob-e2e-" + hex.EncodeToString(suffix[:])
	port := freePort(t)
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	common := []string{"-namespace", ns, "-webhook-url", url}

	before := snapshot(t, ctx, c)
	runCmd(t, ctx, bin, append(append([]string{"-kubeconfig", admin}, common...), "install")...)

	// A token of the operator's ServiceAccount, and a kubeconfig with it.
	var tr authenticationv1.TokenRequest
	if err := client.Typed[*corev1.ServiceAccount](c).Namespace(ns).CreateSubresource(ctx, Name, "token", &authenticationv1.TokenRequest{}, &tr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	saConfig := filepath.Join(dir, "operator.kubeconfig")
	if err := kubeconfig.Write(saConfig, kubeconfig.FromRESTConfig(cp.TokenConfig(tr.Status.Token), "operator", ns)); err != nil {
		t.Fatal(err)
	}

	report := filepath.Join(dir, "requests.json")
	var logs syncBuffer
	op := exec.CommandContext(ctx, bin, append(append([]string{"-kubeconfig", saConfig}, common...),
		"-webhook-addr", fmt.Sprintf("127.0.0.1:%d", port), "-health-addr", "127.0.0.1:0", "-rbac-report", report)...)
	op.Stdout, op.Stderr = &logs, &logs
	if err := op.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- op.Wait() }()
	defer func() {
		if t.Failed() {
			t.Logf("operator output:\n%s", logs.String())
		}
	}()

	// The operator provisions its CA and the leader fills the caBundle of
	// the webhook configurations the installation created.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		for _, name := range []string{"cronjob"} {
			m, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			v, err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if len(m.Webhooks[0].ClientConfig.CABundle) == 0 || len(v.Webhooks[0].ClientConfig.CABundle) == 0 {
				return errors.New("caBundle not filled in yet")
			}
		}
		return nil
	})
	if _, err := client.Typed[*corev1.Secret](c).Namespace(ns).Get(ctx, Name+"-webhook-ca", metav1.GetOptions{}); err != nil {
		t.Fatalf("the CA Secret: %v", err)
	}

	cronJobs := client.Typed[*v1.CronJob](c).Namespace(ns)
	cj := &v1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "often"},
		Spec: v1.CronJobSpec{
			Schedule: "not a schedule",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "registry.example/c:1"}},
			}}}},
		},
	}
	// The validating webhook refuses a bad schedule. kube-apiserver may
	// take a moment to load the configurations' new caBundle.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := cronJobs.Create(ctx, cj, metav1.CreateOptions{})
		switch {
		case err == nil:
			return errors.New("a CronJob with a bad schedule was admitted")
		case apierrors.IsInvalid(err) && strings.Contains(err.Error(), "spec.schedule"):
			return nil
		default:
			return err
		}
	})
	cj.Spec.Schedule = "@every 5s"
	created, err := cronJobs.Create(ctx, cj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.SuccessfulJobsHistoryLimit == nil || created.Spec.FailedJobsHistoryLimit == nil {
		t.Errorf("history limits unset: the defaulting webhook did not run")
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		jobs, err := client.Typed[*batchv1.Job](c).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, j := range jobs.Items {
			if metav1.IsControlledBy(j, created) {
				return nil
			}
		}
		return fmt.Errorf("no Job of the CronJob yet among %d", len(jobs.Items))
	})

	// A graceful stop writes the report of every request made.
	if err := op.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the operator exited with %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the operator did not stop")
	}
	var got struct {
		Requests  []rbac.Request
		Forbidden []rbac.Request
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Forbidden) > 0 {
		t.Errorf("kube-apiserver denied %d requests of the operator: %v", len(got.Forbidden), got.Forbidden)
	}
	m := grantedTo(t, ctx, c, ns)
	unused, err := rbac.Check(m, got.Requests)
	if err != nil {
		t.Errorf("the derived rules do not allow what the operator did: %v", err)
	}
	for _, u := range unused {
		key := u.Verb + " " + u.Group + "/" + u.Resource
		if why, ok := expectedUnused[key]; ok {
			t.Logf("granted, unused in this run: %s (%s)", u, why)
		} else {
			t.Errorf("granted and unused, with no reason given: %s", u)
		}
	}
	t.Logf("%d distinct requests, %d unused rule verbs", len(got.Requests), len(unused))

	// Installing again changes nothing; uninstalling leaves the cluster
	// as it was.
	out := runCmd(t, ctx, bin, append(append([]string{"-kubeconfig", admin}, common...), "install")...)
	if strings.Contains(out, " created") || strings.Contains(out, " changed") {
		t.Errorf("a second install changed something:\n%s", out)
	}
	runCmd(t, ctx, bin, append(append([]string{"-kubeconfig", admin}, common...), "uninstall")...)
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		after := snapshot(t, ctx, c)
		for kind, names := range after {
			var extra []string
			for _, n := range names {
				if !slices.Contains(before[kind], n) {
					extra = append(extra, n)
				}
			}
			if len(extra) > 0 {
				return fmt.Errorf("left after uninstall: %v", extra)
			}
		}
		return nil
	})
}

// snapshot lists, per kind an installation touches, the objects labelled
// as an installation's, plus the Namespaces, by name.
func snapshot(t *testing.T, ctx context.Context, c *client.Client) map[string][]string {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: install.OperatorLabel + "=" + Name}
	out := map[string][]string{}
	add := func(kind string, err error, names ...string) {
		if err != nil {
			t.Fatalf("listing %s: %v", kind, err)
		}
		out[kind] = append(out[kind], names...)
	}
	// An object being deleted counts until it is gone, but for a
	// Namespace: removing what a namespace holds is kube-controller-
	// manager's work, which testenv does not run, so a deleted Namespace
	// stays terminating.
	list := func(kind string, f func() ([]metav1.Object, error)) {
		objs, err := f()
		var names []string
		for _, o := range objs {
			if kind != "Namespace" || o.GetDeletionTimestamp() == nil {
				names = append(names, o.GetNamespace()+"/"+o.GetName())
			}
		}
		add(kind, err, names...)
	}
	list("ClusterRole", func() ([]metav1.Object, error) { return items(client.Typed[*rbacv1.ClusterRole](c).List(ctx, sel)) })
	list("ClusterRoleBinding", func() ([]metav1.Object, error) {
		return items(client.Typed[*rbacv1.ClusterRoleBinding](c).List(ctx, sel))
	})
	list("Role", func() ([]metav1.Object, error) { return items(client.Typed[*rbacv1.Role](c).List(ctx, sel)) })
	list("RoleBinding", func() ([]metav1.Object, error) { return items(client.Typed[*rbacv1.RoleBinding](c).List(ctx, sel)) })
	list("ServiceAccount", func() ([]metav1.Object, error) { return items(client.Typed[*corev1.ServiceAccount](c).List(ctx, sel)) })
	list("Service", func() ([]metav1.Object, error) { return items(client.Typed[*corev1.Service](c).List(ctx, sel)) })
	list("ConfigMap", func() ([]metav1.Object, error) { return items(client.Typed[*corev1.ConfigMap](c).List(ctx, sel)) })
	list("MutatingWebhookConfiguration", func() ([]metav1.Object, error) {
		return items(client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).List(ctx, sel))
	})
	list("ValidatingWebhookConfiguration", func() ([]metav1.Object, error) {
		return items(client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).List(ctx, sel))
	})
	list("CustomResourceDefinition", func() ([]metav1.Object, error) {
		l, err := dynamic.New(c.REST(), dynamic.Options{}).Resource(crd.Resource).List(ctx, sel)
		if err != nil {
			return nil, err
		}
		var out []metav1.Object
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
		return out, nil
	})
	list("Namespace", func() ([]metav1.Object, error) {
		return items(client.Typed[*corev1.Namespace](c).List(ctx, metav1.ListOptions{}))
	})
	for i, n := range out["Namespace"] {
		out["Namespace"][i] = "Namespace " + strings.TrimPrefix(n, "/")
	}
	return out
}

func items[T informer.Object](l *client.List[T], err error) ([]metav1.Object, error) {
	if err != nil {
		return nil, err
	}
	out := make([]metav1.Object, 0, len(l.Items))
	for _, o := range l.Items {
		out = append(out, o)
	}
	return out, nil
}

// grantedTo reads the roles and bindings the installation made.
func grantedTo(t *testing.T, ctx context.Context, c *client.Client, ns string) *rbac.Manifest {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: install.OperatorLabel + "=" + Name}
	m := &rbac.Manifest{}
	crs, err := client.Typed[*rbacv1.ClusterRole](c).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range crs.Items {
		m.ClusterRoles = append(m.ClusterRoles, *o)
	}
	crbs, err := client.Typed[*rbacv1.ClusterRoleBinding](c).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range crbs.Items {
		m.ClusterRoleBindings = append(m.ClusterRoleBindings, *o)
	}
	rs, err := client.Typed[*rbacv1.Role](c).Namespace(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rs.Items {
		m.Roles = append(m.Roles, *o)
	}
	rbs, err := client.Typed[*rbacv1.RoleBinding](c).Namespace(ns).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rbs.Items {
		m.RoleBindings = append(m.RoleBindings, *o)
	}
	return m
}

func runCmd(t *testing.T, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s:\n%s", filepath.Base(bin), args[len(args)-1], out)
	return string(bytes.TrimSpace(out))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// syncBuffer is a bytes.Buffer safe for the writes of a process's output
// and the reads of the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
