package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

// The conformance suite: behaviour tests written once against a
// *rest.Config and run against the fake server (TestConformanceFake) and
// against a real kube-apiserver (TestConformanceReal, an integration test).

// fakeExceptions are behaviours where the fake knowingly differs from
// kube-apiserver: the test is skipped on the fake only. Keep in step with
// the lists in docs/fake-fidelity.md (TestFidelityCatalogueNamesTheExceptions checks it).
var fakeExceptions = map[string]string{}

// realGaps are behaviours of a full cluster that the test control plane
// (kube-apiserver and etcd only, no kube-controller-manager) does not have;
// the fake emulates them. The test is skipped on the real server only.
var realGaps = map[string]string{
	"OwnerDeletionCascadesToDependents":                 "garbage collection runs in kube-controller-manager, which the test control plane lacks",
	"OrphanDeletionKeepsDependents":                     "garbage collection runs in kube-controller-manager, which the test control plane lacks",
	"NamespaceDeletionRemovesContents":                  "namespace cleanup runs in kube-controller-manager, which the test control plane lacks",
	"WatchFromTooOldResourceVersionIsExpired":           "kube-apiserver compacts etcd every 5 minutes; a young control plane still serves a watch from resourceVersion 1 by replaying history",
	"UnusedClaimIsDeletedDespiteItsProtectionFinalizer": "the claim protection controller runs in kube-controller-manager, which the test control plane lacks",
	"ExpiredContinueHandsBackAnInconsistentToken":       "kube-apiserver compacts etcd every 5 minutes; a young control plane still serves an old continue token's snapshot",
}

// target is one server under test.
type target struct {
	name   string
	config func(t *testing.T) *rest.Config
	// isFake marks the fake, for the exception lists.
	isFake bool
	// contentType forces a wire format (zero: the client's default).
	contentType rest.ContentType
	// logs is where the target's pods run and get their log content.
	logs func(t *testing.T, cfg *rest.Config) logHost
}

type conformanceCase struct {
	name string
	run  func(e *env)
}

// env is what one conformance test gets: a client and its own namespace.
type env struct {
	*testing.T
	ctx context.Context
	c   *rest.Client
	cfg *rest.Config
	ns  string
	tg  target
}

var nsCounter atomic.Int64

func newEnv(t *testing.T, tg target) *env {
	t.Helper()
	cfg := tg.config(t)
	cfg.ContentType = tg.contentType
	if cfg.Scheme == nil {
		// The cases send untyped requests for built-in kinds and compare
		// what each server answers in the content type asked for: with
		// every kind registered, Auto means protobuf for them on both
		// servers, as a client-go clientset would use.
		cfg.Scheme = scheme.Default()
	}
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	e := &env{T: t, ctx: ctx, c: c, cfg: cfg, tg: tg}
	e.ns = fmt.Sprintf("conf-%d-%d", time.Now().UnixNano()%1_000_000, nsCounter.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}
	if err := c.Post().Resource("namespaces").Body(ns).Do(ctx).Error(); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Delete().Resource("namespaces").Name(e.ns).Do(context.Background()).Error()
	})
	return e
}

func runConformance(t *testing.T, tg target) {
	for _, tc := range slices.Concat(conformanceCases(), fidelityCases(), openAPICases(), defaultingCases(), applyCases(), goTypeCases(), webhookCases(), webhookParityCases(), serverRuleCases(), celCases(), celDefinitionCases(), celWebhookCases()) {
		t.Run(tc.name, func(t *testing.T) {
			if why, ok := fakeExceptions[tc.name]; ok && tg.isFake {
				t.Skip("documented exception: " + why)
			}
			if why, ok := realGaps[tc.name]; ok && !tg.isFake {
				t.Skip("test control plane: " + why)
			}
			tc.run(newEnv(t, tg))
		})
	}
}

// fakeTarget runs each test on its own fake server.
func fakeTarget(ct rest.ContentType) target {
	return target{
		name:        "fake",
		isFake:      true,
		contentType: ct,
		config: func(t *testing.T) *rest.Config {
			srv := fake.NewServer(fake.Options{HistoryWindow: 50})
			t.Cleanup(srv.Close)
			cfg := srv.Config()
			fakeServers.Store(cfg.Host, srv)
			t.Cleanup(func() { fakeServers.Delete(cfg.Host) })
			return cfg
		},
		logs: fakeLogHost,
	}
}

func TestConformanceFake(t *testing.T) {
	t.Run("Auto", func(t *testing.T) { runConformance(t, fakeTarget(rest.ContentTypeAuto)) })
	t.Run("JSON", func(t *testing.T) { runConformance(t, fakeTarget(rest.ContentTypeJSON)) })
}

// ---- helpers ----

func (e *env) configMap(name string, data map[string]string, labels map[string]string) *corev1.ConfigMap {
	e.Helper()
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: data}
	var out corev1.ConfigMap
	if err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Into(&out); err != nil {
		e.Fatalf("create configmap %s: %v", name, err)
	}
	return &out
}

func (e *env) getConfigMap(name string) (*corev1.ConfigMap, error) {
	var out corev1.ConfigMap
	err := e.c.Get().Namespace(e.ns).Resource("configmaps").Name(name).Do(e.ctx).Into(&out)
	return &out, err
}

func newDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
			},
		},
	}
}

func (e *env) deployment(name string, replicas int32) *appsv1.Deployment {
	e.Helper()
	var out appsv1.Deployment
	if err := e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Body(newDeployment(name, replicas)).Do(e.ctx).Into(&out); err != nil {
		e.Fatalf("create deployment %s: %v", name, err)
	}
	return &out
}

func (e *env) deploymentReq(verb, name string, sub ...string) *rest.Request {
	return e.c.Verb(verb).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name(name).SubResource(sub...)
}

func newPod(name string, restart corev1.RestartPolicy) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: restart,
			Containers:    []corev1.Container{{Name: "c", Image: "registry.example/app:1"}},
		},
	}
}

func wantStatus(e *env, err error, code int32, reason metav1.StatusReason) *apierrors.StatusError {
	e.Helper()
	var se *apierrors.StatusError
	if err == nil {
		e.Fatalf("got success, want %d %s", code, reason)
	}
	if !errorsAs(err, &se) {
		e.Fatalf("got %T %v, want a StatusError %d %s", err, err, code, reason)
	}
	if se.ErrStatus.Code != code || (reason != "" && se.ErrStatus.Reason != reason) {
		e.Fatalf("got %d %s (%s), want %d %s", se.ErrStatus.Code, se.ErrStatus.Reason, se.ErrStatus.Message, code, reason)
	}
	return se
}

func must(e *env, err error) {
	e.Helper()
	if err != nil {
		e.Fatal(err)
	}
}

// watchCM opens a watch on the env's configmaps with the given params.
func (e *env) watchCM(params map[string]string) *rest.WatchStream {
	e.Helper()
	r := e.c.Get().Namespace(e.ns).Resource("configmaps")
	for k, v := range params {
		r = r.Param(k, v)
	}
	w, err := r.Watch(e.ctx, func() runtime.Object { return &corev1.ConfigMap{} })
	if err != nil {
		e.Fatalf("watch: %v", err)
	}
	e.Cleanup(w.Stop)
	return w
}

// next returns the next event, failing the test after a timeout.
func next(e *env, w *rest.WatchStream) watch.Event {
	e.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			e.Fatalf("watch ended: %v", w.Err())
		}
		return ev
	case <-time.After(10 * time.Second):
		e.Fatal("no watch event within 10s")
	}
	return watch.Event{}
}

// nextNonBookmark skips periodic bookmarks.
func nextNonBookmark(e *env, w *rest.WatchStream) watch.Event {
	e.Helper()
	for {
		ev := next(e, w)
		if ev.Type != watch.Bookmark {
			return ev
		}
	}
}

func nameOf(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return fmt.Sprintf("<%T>", obj)
}

func (e *env) patchCM(pt types.PatchType, name, body string, params ...string) (*corev1.ConfigMap, error) {
	r := e.c.Patch(pt).Namespace(e.ns).Resource("configmaps").Name(name).Body([]byte(body))
	for i := 0; i+1 < len(params); i += 2 {
		r = r.Param(params[i], params[i+1])
	}
	var out corev1.ConfigMap
	err := r.Do(e.ctx).Into(&out)
	return &out, err
}

const widgetGroup = "conformance.kubego.dev"

// widgets makes sure the Widget CRD (namespaced, status subresource) is
// served and returns a request builder for it.
func (e *env) widgets() func(verb string) *rest.Request {
	e.Helper()
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}
	return e.serveCRD(crd, "widgets")
}

// gadgets makes sure the Gadget CRD (namespaced, a structural schema with
// defaults, enums, bounds and a preserved subtree) is served and returns a
// request builder for it.
func (e *env) gadgets() func(verb string) *rest.Request {
	e.Helper()
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object", "required": []any{"size"},
							"properties": map[string]any{
								"size":  map[string]any{"type": "integer", "minimum": int64(1), "maximum": int64(10)},
								"color": map[string]any{"type": "string", "enum": []any{"red", "blue"}, "default": "red"},
								"name":  map[string]any{"type": "string", "maxLength": int64(8), "pattern": "^[a-z]+$"},
								"ports": map[string]any{"type": "array", "items": map[string]any{
									"type": "object", "properties": map[string]any{
										"port":     map[string]any{"type": "integer"},
										"protocol": map[string]any{"type": "string", "default": "TCP"},
									},
								}},
								"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
								"extra":  map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
							},
						},
						"status": map[string]any{"type": "object", "properties": map[string]any{
							"ready": map[string]any{"type": "boolean"},
						}},
					},
				}},
			}},
		},
	}
	return e.serveCRD(crd, "gadgets")
}

// serveCRD creates the definition crd (unless it exists) and waits until
// its resource (plural, version v1 of widgetGroup) is served.
func (e *env) serveCRD(crd map[string]any, plural string) func(verb string) *rest.Request {
	e.Helper()
	body, _ := json.Marshal(crd)
	err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(body).Do(e.ctx).Error()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		e.Fatalf("create CRD: %v", err)
	}
	req := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource(plural)
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if err := kubegotest.Poll(ctx, func(ctx context.Context) error { return req(http.MethodGet).Do(ctx).Error() }); err != nil {
		e.Fatalf("CRD not served: %v", err)
	}
	return req
}

func widget(name string, spec map[string]any) []byte {
	return customResource("Widget", name, spec)
}

func customResource(kind, name string, spec map[string]any) []byte {
	data, _ := json.Marshal(map[string]any{
		"apiVersion": widgetGroup + "/v1", "kind": kind,
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	})
	return data
}

func managers(m metav1.Object) []string {
	var out []string
	for _, f := range m.GetManagedFields() {
		out = append(out, f.Manager+":"+string(f.Operation))
	}
	slices.Sort(out)
	return out
}

var _ = strings.Contains
var _ = autoscalingv1.Scale{}
var _ = unstructured.Unstructured{}
