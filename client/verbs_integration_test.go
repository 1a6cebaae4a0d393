package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// nextEvent waits for the next watch event.
func nextEvent(t *testing.T, w *rest.WatchStream) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch ended: %v", w.Err())
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

func TestConfigMapEveryVerb(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	cms := client.Typed[*corev1.ConfigMap](e.c).Namespace(e.ns)

	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "a" {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w)

	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" || got.UID != created.UID {
		t.Fatalf("get: %v %v", got, err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	if err != nil || len(list.Items) != 1 || list.ResourceVersion == "" {
		t.Fatalf("list by label: %+v %v", list, err)
	}
	list, err = cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=b"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "b" {
		t.Fatalf("list by field: %+v %v", list, err)
	}
	exact, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil || len(exact.Items) < 2 {
		t.Fatalf("list at exact resourceVersion: %+v %v", exact, err)
	}

	got.Data["k"] = "v2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.Data["k"] != "v2" {
		t.Fatalf("update: %v", err)
	}
	nextEvent(t, w)
	// A stale resourceVersion conflicts.
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want conflict", err)
	}

	// Each patch type (strategic merge is allowed for built-ins).
	patches := []struct {
		pt   types.PatchType
		data string
		key  string
	}{
		{types.JSONPatchType, `[{"op":"add","path":"/data/jp","value":"1"}]`, "jp"},
		{types.MergePatchType, `{"data":{"mp":"1"}}`, "mp"},
		{types.StrategicMergePatchType, `{"data":{"smp":"1"}}`, "smp"},
	}
	for _, p := range patches {
		out, err := cms.Patch(ctx, "a", p.pt, []byte(p.data), metav1.PatchOptions{})
		if err != nil || out.Data[p.key] != "1" {
			t.Fatalf("%s patch: %v %v", p.pt, out, err)
		}
		nextEvent(t, w)
	}
	applied, err := cms.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "a"}, "data": map[string]any{"ssa": "1"}}, client.ApplyOptions{FieldManager: "t", Force: true})
	if err != nil || applied.Data["ssa"] != "1" {
		t.Fatalf("apply: %v", err)
	}
	nextEvent(t, w)

	// Delete with a precondition that does not hold, then with one that does.
	wrong := types.UID("not-the-uid")
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong UID: %v, want conflict", err)
	}
	fg := metav1.DeletePropagationBackground // no garbage collector runs here: foreground would never finish
	zero := int64(0)
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}, PropagationPolicy: &fg, GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Deleted && ev.Type != watch.Modified {
		t.Fatalf("event %v after delete", ev.Type)
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		left, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(left.Items) != 0 {
			return fmt.Errorf("%d configmaps left after DeleteCollection", len(left.Items))
		}
		return nil
	})
}

func TestDeploymentStatusAndScale(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	deps := client.Typed[*appsv1.Deployment](e.c).Namespace(e.ns)
	one := int32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	d, err := deps.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Status.Replicas, d.Status.ObservedGeneration = 1, d.Generation
	st, err := deps.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	if err != nil || st.Status.Replicas != 1 {
		t.Fatalf("update status: %v %v", st, err)
	}
	// Status is ignored by a plain update.
	st.Status.Replicas = 7
	up, err := deps.Update(ctx, st, metav1.UpdateOptions{})
	if err != nil || up.Status.Replicas != 1 {
		t.Fatalf("update ignored status? %v %v", up.Status.Replicas, err)
	}
	if _, err := deps.ApplyStatus(ctx, map[string]any{"metadata": map[string]any{"name": "web"}, "status": map[string]any{"readyReplicas": 1, "availableReplicas": 1}}, client.ApplyOptions{FieldManager: "status-writer", Force: true}); err != nil {
		t.Fatalf("apply status: %v", err)
	}

	scale, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 1 {
		t.Fatalf("get scale: %v %v", scale, err)
	}
	scale.Spec.Replicas = 4
	if scale, err = deps.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil || scale.Spec.Replicas != 4 {
		t.Fatalf("update scale: %v %v", scale, err)
	}
	got, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 4 {
		t.Fatalf("replicas after scale: %v %v", got.Spec.Replicas, err)
	}
	// Generic subresource access reaches the same endpoint.
	var raw appsv1.Deployment
	if err := deps.GetSubresource(ctx, "web", "status", &raw, metav1.GetOptions{}); err != nil || raw.Status.AvailableReplicas != 1 {
		t.Fatalf("get status subresource: %v %v", raw.Status, err)
	}
}

func TestPodEvictionAndLogs(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	pods := client.Typed[*corev1.Pod](e.c).Namespace(e.ns)
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No kubelet: the pod is never scheduled and the server answers with an
	// empty log (or a status error on other versions); the stream must
	// open, read to the end and close.
	logs, err := client.Logs(ctx, pods, "p", corev1.PodLogOptions{Container: "c"})
	var se *apierrors.StatusError
	switch {
	case err == nil:
		if _, err := io.ReadAll(logs); err != nil {
			t.Fatal(err)
		}
		if err := logs.Close(); err != nil {
			t.Fatal(err)
		}
	case !errors.As(err, &se):
		t.Fatalf("logs of an unscheduled pod: %v", err)
	}
	if err := client.Evict(ctx, pods, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("evict: %v", err)
	}
	if _, err := pods.Get(ctx, "p", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("pod after eviction: %v", err)
	}
}

func TestCustomResourceEveryVerb(t *testing.T) {
	group := "kubego-" + randomSuffix() + ".test"
	reg := client.NewRegistry()
	e := setup(t, client.Options{Registry: reg})
	gvr := installWidgetCRD(t, e, group)
	client.Register[*Widget](reg, gvr, true)
	ctx := ctxFor(t)
	ws := client.Typed[*Widget](e.c).Namespace(e.ns)

	w, err := ws.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	two := int32(2)
	created, err := ws.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Spec: WidgetSpec{Size: 1, Tags: []string{"a"}, Memory: resource.MustParse("1Gi"), Replicas: &two}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Memory.String() != "1Gi" || created.APIVersion != group+"/v1" {
		t.Fatalf("created %+v", created)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*Widget).Spec.Size != 1 {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}
	if _, err := ws.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w2", Labels: map[string]string{"x": "y"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w)
	got, err := ws.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || got.Spec.Tags[0] != "a" {
		t.Fatalf("get %v %v", got, err)
	}
	list, err := ws.List(ctx, metav1.ListOptions{LabelSelector: "x=y"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "w2" {
		t.Fatalf("list %+v %v", list, err)
	}
	got.Spec.Size = 5
	if got, err = ws.Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Spec.Size != 5 {
		t.Fatalf("update %v", err)
	}
	got.Status.Ready = true
	if got, err = ws.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil || !got.Status.Ready {
		t.Fatalf("update status %v", err)
	}
	if got, err = ws.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"size":6}}`), metav1.PatchOptions{}); err != nil || got.Spec.Size != 6 {
		t.Fatalf("merge patch %v", err)
	}
	if got, err = ws.Patch(ctx, "w1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":7}]`), metav1.PatchOptions{}); err != nil || got.Spec.Size != 7 {
		t.Fatalf("json patch %v", err)
	}
	if _, err := ws.Patch(ctx, "w1", types.StrategicMergePatchType, []byte(`{}`), metav1.PatchOptions{}); !errors.Is(err, client.ErrPatchType) {
		t.Fatalf("strategic patch on a CRD: %v, want ErrPatchType", err)
	}
	if got, err = ws.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"tags": []any{"b", "c"}}}, client.ApplyOptions{FieldManager: "t", Force: true}); err != nil || len(got.Spec.Tags) != 2 {
		t.Fatalf("apply %v %v", got, err)
	}
	scale, err := ws.GetScale(ctx, "w1", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 2 {
		t.Fatalf("scale %v %v", scale, err)
	}
	scale.Spec.Replicas = 3
	if _, err := ws.UpdateScale(ctx, "w1", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ = ws.Get(ctx, "w1", metav1.GetOptions{}); *got.Spec.Replicas != 3 {
		t.Fatalf("replicas %d after scale", *got.Spec.Replicas)
	}
	if err := ws.Delete(ctx, "w2", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr("1")}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with stale resourceVersion: %v", err)
	}
	if err := ws.Delete(ctx, "w2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ws.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if left, err := ws.List(ctx, metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
		t.Fatalf("left %v %v", left, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestServerSideApplyByTwoManagers(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	cms := client.Typed[*corev1.ConfigMap](e.c).Namespace(e.ns)
	cfg := func(v string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "shared"}, "data": map[string]any{"color": v}}
	}
	if _, err := cms.Apply(ctx, cfg("red"), client.ApplyOptions{FieldManager: "alice"}); err != nil {
		t.Fatal(err)
	}
	// Bob adds his own field: no conflict.
	if _, err := cms.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "shared"}, "data": map[string]any{"size": "L"}}, client.ApplyOptions{FieldManager: "bob"}); err != nil {
		t.Fatal(err)
	}
	// Bob changes Alice's field: conflict.
	_, err := cms.Apply(ctx, cfg("blue"), client.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("bob overwriting alice: %v, want conflict", err)
	}
	// Forced, Bob takes the field over.
	got, err := cms.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "shared"}, "data": map[string]any{"size": "L", "color": "blue"}}, client.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil || got.Data["color"] != "blue" {
		t.Fatalf("forced apply: %v %v", got, err)
	}
	owners := map[string]string{}
	for _, mf := range got.ManagedFields {
		owners[mf.Manager] = string(mf.FieldsV1.Raw)
	}
	if strings.Contains(owners["alice"], "color") || !strings.Contains(owners["bob"], "color") {
		t.Fatalf("ownership after forced apply: %v", owners)
	}
	// The typed-struct pitfall stays contained: applying a typed object
	// claims no empty fields.
	typed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared"}, Data: map[string]string{"extra": "1"}}
	got, err = cms.Apply(ctx, typed, client.ApplyOptions{FieldManager: "carol"})
	if err != nil || got.Data["color"] != "blue" || got.Data["extra"] != "1" {
		t.Fatalf("typed apply: %v %v", got, err)
	}
}

func TestPaginationOverAThousandObjects(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	cms := client.Typed[*corev1.ConfigMap](e.c).Namespace(e.ns)
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"bulk": "yes"}}}, metav1.CreateOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	before := e.count.n.Load()
	seen := map[string]bool{}
	for cm, err := range cms.All(ctx, client.AllOptions{List: metav1.ListOptions{LabelSelector: "bulk=yes", Limit: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[cm.Name] {
			t.Fatalf("%s twice", cm.Name)
		}
		seen[cm.Name] = true
	}
	if len(seen) != n {
		t.Fatalf("iterated %d objects, want %d", len(seen), n)
	}
	if reqs := e.count.n.Load() - before; reqs != 10 {
		t.Fatalf("%d list requests for %d objects in pages of 100, want 10", reqs, n)
	}
	// Without a selector the server also counts what is left.
	first, err := cms.List(ctx, metav1.ListOptions{Limit: 100})
	if err != nil || len(first.Items) != 100 || first.Continue == "" || first.RemainingItemCount == nil || *first.RemainingItemCount != n-100 {
		t.Fatalf("first page: %d items, continue %q, remaining %v, %v", len(first.Items), first.Continue, first.RemainingItemCount, err)
	}
}

func TestRetryOnConflictAgainstTheServer(t *testing.T) {
	e := setup(t, client.Options{})
	ctx := ctxFor(t)
	cms := client.Typed[*corev1.ConfigMap](e.c).Namespace(e.ns)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "counter"}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 5
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := client.RetryOnConflict(ctx, backoff.Backoff{Steps: 100, Initial: 5 * time.Millisecond, Jitter: 1}, func(ctx context.Context) error {
					cm, err := cms.Get(ctx, "counter", metav1.GetOptions{})
					if err != nil {
						return err
					}
					var v int
					_ = json.Unmarshal([]byte(cm.Data["n"]), &v)
					cm.Data["n"] = fmt.Sprint(v + 1)
					_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	cm, err := cms.Get(ctx, "counter", metav1.GetOptions{})
	if err != nil || cm.Data["n"] != fmt.Sprint(workers*each) {
		t.Fatalf("counter %v, want %d (%v)", cm.Data, workers*each, err)
	}
}
