package rbac_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A Manager running as a ServiceAccount bound only to the rules derived
// from it does all its work — two controllers (a metadata-only and a
// typed source), their writes, an event recorder, leader election — with
// no request denied by kube-apiserver, and the check finds every request
// allowed and no rule unused but the ones the run had no occasion for.
// The same recorded requests against rules missing one fail the check.
func TestIntegrationDerivedRulesSufficeAndAreUsed(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	admin, err := client.NewForConfig(cp.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, admin)
	sa := types.NamespacedName{Namespace: ns, Name: "operator"}
	cfg := serviceAccountConfig(t, admin, cp.Config(), sa)
	plain := *cfg // without the recorder: for the readiness probes below

	var rec rbac.Recorder
	rec.Wrap(cfg)
	mgr, err := manager.New(manager.Options{
		Config: cfg,
		LeaderElection: &leaderelection.Config{
			Lock:            types.NamespacedName{Namespace: ns, Name: "operator"},
			ReleaseOnCancel: true,
		},
		Logger: kubegotest.Logger(t, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Namespace: ns, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if err := setupNoter(mgr, ns); err != nil {
		t.Fatal(err)
	}
	perms, err := mgr.Permissions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rbac.Derive(perms, rbac.Options{ServiceAccount: sa})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := m.YAML()
	t.Logf("derived:\n%s", y)
	if len(m.ClusterRoles) != 0 {
		t.Errorf("a Manager whose informers are all in namespace %s got ClusterRoles %v", ns, m.ClusterRoles)
	}
	apply(t, admin, m)
	waitGranted(t, &plain, m)

	// Run until both controllers have done their work.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	deps := client.Typed[*appsv1.Deployment](admin).Namespace(ns)
	cms := client.Typed[*corev1.ConfigMap](admin).Namespace(ns)
	for i := range 3 {
		if _, err := deps.Create(ctx, deployment(fmt.Sprintf("d%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		dl, err := deps.List(ctx, metav1.ListOptions{LabelSelector: labeler.Label})
		if err != nil {
			return err
		}
		cl, err := cms.List(ctx, metav1.ListOptions{LabelSelector: noted})
		if err != nil {
			return err
		}
		el, err := client.Typed[*eventsv1.Event](admin).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(dl.Items) != 3 || len(cl.Items) != 3 || len(el.Items) < 3 {
			return fmt.Errorf("%d deployments labeled, %d configmaps noted, %d events", len(dl.Items), len(cl.Items), len(el.Items))
		}
		return nil
	})
	stop()
	if err := <-done; err != nil {
		t.Fatalf("manager: %v", err)
	}

	reqs := rec.Requests()
	for _, r := range reqs {
		t.Logf("request: %s", r)
	}
	if f := rec.Forbidden(); len(f) > 0 {
		t.Fatalf("kube-apiserver denied %v", f)
	}
	unused, err := rbac.Check(m, reqs)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	// Why the run left these unused: an informer lists only when the
	// server cannot stream its initial state in a watch (this one can),
	// and the event recorder patches an Event only to count a repeat of
	// it (a series), which this run never makes.
	want := []string{
		"Role " + ns + "/operator: list configmaps",
		"Role " + ns + "/operator: list deployments.apps",
		"Role " + ns + "/operator: patch events.events.k8s.io",
	}
	var got []string
	for _, u := range unused {
		got = append(got, u.String())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("unused rules %q, want %q", got, want)
	}

	// The same requests against rules missing the labeler's write, with a
	// write nobody made: the check names both.
	var less []rbac.Permission
	for _, p := range perms {
		if !(p.Resource == "deployments" && slices.Contains(p.Verbs, "patch")) {
			less = append(less, p)
		}
	}
	less = append(less, rbac.Permission{Resource: "secrets", Verbs: []string{"delete"}, Namespace: ns})
	m2, err := rbac.Derive(less, rbac.Options{ServiceAccount: sa})
	if err != nil {
		t.Fatal(err)
	}
	unused, err = rbac.Check(m2, reqs)
	var denied *rbac.DeniedError
	if !errors.As(err, &denied) || len(denied.Requests) != 3 {
		t.Fatalf("check without the deployments patch: %v, want the 3 patches denied", err)
	}
	for _, r := range denied.Requests {
		if r.Verb != "patch" || r.Resource != "deployments" || r.Namespace != ns {
			t.Errorf("denied %s, want only the deployments patches", r)
		}
	}
	if !slices.ContainsFunc(unused, func(u rbac.Unused) bool { return u.Verb == "delete" && u.Resource == "secrets" }) {
		t.Errorf("unused %v: want the delete of secrets listed", unused)
	}
}

// noted is the label the noter controller adds to ConfigMaps.
const noted = "noted"

// setupNoter adds a controller that labels each ConfigMap of ns and
// records an Event about it: a typed source, a cache read, a write and an
// event.
func setupNoter(mgr *manager.Manager, ns string) error {
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: ns})); err != nil {
		return err
	}
	cache, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
	if err != nil {
		return err
	}
	events, err := mgr.EventRecorder("rbac-test.kubego.io/noter")
	if err != nil {
		return err
	}
	cms := client.Typed[*corev1.ConfigMap](mgr.Client()).DiscardResults()
	patch := []byte(`{"metadata":{"labels":{"` + noted + `":"yes"}}}`)
	_, err = mgr.NewController(controller.Options{
		Name:        "noter",
		Sources:     []controller.Source{controller.For[*corev1.ConfigMap]{}},
		Permissions: []rbac.Permission{{Resource: "configmaps", Verbs: []string{"patch"}, Namespace: ns}},
		Reconciler: controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			cm, err := cache.Get(ctx, req.Key)
			if apierrors.IsNotFound(err) {
				return controller.Result{}, nil
			}
			if err != nil {
				return controller.Result{}, err
			}
			if _, ok := cm.Labels[noted]; ok {
				return controller.Result{}, nil
			}
			if _, err := cms.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return controller.Result{}, err
			}
			events.Eventf(cm, nil, record.Normal, "Noted", "Label", "labelled %s", cm.Name)
			return controller.Result{}, nil
		}),
	})
	return err
}

func newNamespace(t *testing.T, c *client.Client) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	ns := "rbac-" + hex.EncodeToString(b)
	if _, err := client.Typed[*corev1.Namespace](c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Typed[*corev1.Namespace](c).Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return ns
}

// serviceAccountConfig creates the ServiceAccount sa and returns a Config
// that authenticates as it, with a token from the TokenRequest API.
func serviceAccountConfig(t *testing.T, admin *client.Client, base *rest.Config, sa types.NamespacedName) *rest.Config {
	t.Helper()
	sas := client.Typed[*corev1.ServiceAccount](admin).Namespace(sa.Namespace)
	if _, err := sas.Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa.Name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var tr authenticationv1.TokenRequest
	if err := sas.CreateSubresource(t.Context(), sa.Name, "token", &authenticationv1.TokenRequest{}, &tr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if tr.Status.Token == "" {
		t.Fatal("TokenRequest returned no token")
	}
	return &rest.Config{Host: base.Host, TLS: rest.TLSConfig{CAData: base.TLS.CAData}, BearerToken: tr.Status.Token}
}

// apply creates the Manifest's objects.
func apply(t *testing.T, admin *client.Client, m *rbac.Manifest) {
	t.Helper()
	ctx := t.Context()
	for _, r := range m.ClusterRoles {
		if _, err := client.Typed[*rbacv1.ClusterRole](admin).Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			client.Typed[*rbacv1.ClusterRole](admin).Delete(context.Background(), r.Name, metav1.DeleteOptions{})
		})
	}
	for _, b := range m.ClusterRoleBindings {
		if _, err := client.Typed[*rbacv1.ClusterRoleBinding](admin).Create(ctx, &b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			client.Typed[*rbacv1.ClusterRoleBinding](admin).Delete(context.Background(), b.Name, metav1.DeleteOptions{})
		})
	}
	for _, r := range m.Roles {
		if _, err := client.Typed[*rbacv1.Role](admin).Namespace(r.Namespace).Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range m.RoleBindings {
		if _, err := client.Typed[*rbacv1.RoleBinding](admin).Namespace(b.Namespace).Create(ctx, &b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitGranted waits until kube-apiserver's authorizer sees every role of
// m bound: a SelfSubjectAccessReview of one rule of each, as the account.
func waitGranted(t *testing.T, cfg *rest.Config, m *rbac.Manifest) {
	t.Helper()
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		ns   string
		rule rbacv1.PolicyRule
	}
	var probes []probe
	for _, r := range m.ClusterRoles {
		probes = append(probes, probe{rule: r.Rules[0]})
	}
	for _, r := range m.Roles {
		probes = append(probes, probe{ns: r.Namespace, rule: r.Rules[0]})
	}
	reviews := client.Typed[*authorizationv1.SelfSubjectAccessReview](c)
	for _, p := range probes {
		attrs := &authorizationv1.ResourceAttributes{Namespace: p.ns, Verb: p.rule.Verbs[0], Group: p.rule.APIGroups[0], Resource: p.rule.Resources[0]}
		if len(p.rule.ResourceNames) > 0 {
			attrs.Name = p.rule.ResourceNames[0]
		}
		kubegotest.Eventually(t.Context(), t, func(ctx context.Context) error {
			r, err := reviews.Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if !r.Status.Allowed {
				return fmt.Errorf("%+v not allowed yet", *attrs)
			}
			return nil
		})
	}
}

func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c"}}},
			},
		},
	}
}
