package objects_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/objects"
)

// writeLog records the methods of the requests a client sends.
type writeLog struct {
	mu      sync.Mutex
	methods []string
	next    http.RoundTripper
}

func (l *writeLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.methods = append(l.methods, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

func (l *writeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.methods
	l.methods = nil
	return out
}

// fakeClient serves objs from a fake API server and logs every request.
func fakeClient(t *testing.T, objs ...runtime.Object) (*client.Client, *writeLog) {
	t.Helper()
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}})
	srv := fake.NewServer(fake.Options{}, objs...)
	t.Cleanup(srv.Close)
	cfg := srv.Config()
	log := &writeLog{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { log.next = rt; return log }
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

func TestCreateOrUpdate(t *testing.T) {
	c, log := fakeClient(t)
	cms := client.Typed[*corev1.ConfigMap](c)
	ctx := t.Context()
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "settings"}}
	setColor := func(color string) func(*corev1.ConfigMap) error {
		return func(cm *corev1.ConfigMap) error {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data["color"] = color
			return nil
		}
	}
	steps := []struct {
		name    string
		color   string
		want    objects.Result
		methods []string
	}{
		{"a missing object is created", "red", objects.Created, []string{"GET /api/v1/namespaces/app/configmaps/settings", "POST /api/v1/namespaces/app/configmaps"}},
		{"no change writes nothing", "red", objects.Unchanged, []string{"GET /api/v1/namespaces/app/configmaps/settings"}},
		{"a change is updated", "blue", objects.Updated, []string{"GET /api/v1/namespaces/app/configmaps/settings", "PUT /api/v1/namespaces/app/configmaps/settings"}},
	}
	for _, st := range steps {
		got, res, err := objects.CreateOrUpdate(ctx, cms, want, setColor(st.color))
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if res != st.want || got.Data["color"] != st.color {
			t.Errorf("%s: result %s, color %q; want %s, %q", st.name, res, got.Data["color"], st.want, st.color)
		}
		if m := log.take(); !slices.Equal(m, st.methods) {
			t.Errorf("%s: requests %v, want %v", st.name, m, st.methods)
		}
	}
	if want.Data != nil {
		t.Errorf("CreateOrUpdate modified the object it was given: %v", want.Data)
	}
}

func TestCreateOrUpdateStopsOnMutateErrors(t *testing.T) {
	c, log := fakeClient(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "settings"}})
	cms := client.Typed[*corev1.ConfigMap](c)
	boom := errors.New("boom")
	tests := []struct {
		name   string
		mutate func(*corev1.ConfigMap) error
		want   error
	}{
		{"the mutate error is returned", func(*corev1.ConfigMap) error { return boom }, boom},
		{"renaming is refused", func(cm *corev1.ConfigMap) error { cm.Name = "other"; return nil }, objects.ErrKeyChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log.take()
			_, _, err := objects.CreateOrUpdate(t.Context(), cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "settings"}}, tt.mutate)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if m := log.take(); len(m) != 1 {
				t.Errorf("requests %v, want only the GET", m)
			}
		})
	}
}

func TestCreateOrPatchWritesSpecAndStatus(t *testing.T) {
	c, log := fakeClient(t)
	deps := client.Typed[*appsv1.Deployment](c)
	ctx := t.Context()
	key := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web"}}
	replicas := func(n int32, observed int64) func(*appsv1.Deployment) error {
		return func(d *appsv1.Deployment) error {
			if d.Spec.Selector == nil { // new: the rest of the spec too
				d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
				d.Spec.Template.Labels = map[string]string{"app": "web"}
				d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx"}}
			}
			d.Spec.Replicas = &n
			d.Status.ObservedGeneration = observed
			return nil
		}
	}
	const path = "/apis/apps/v1/namespaces/app/deployments/web"
	steps := []struct {
		name    string
		mutate  func(*appsv1.Deployment) error
		want    objects.Result
		methods []string
	}{
		{"created", replicas(1, 0), objects.Created, []string{"GET " + path, "POST /apis/apps/v1/namespaces/app/deployments"}},
		{"unchanged", replicas(1, 0), objects.Unchanged, []string{"GET " + path}},
		{"spec only", replicas(2, 0), objects.Updated, []string{"GET " + path, "PATCH " + path}},
		{"status only", replicas(2, 7), objects.Updated, []string{"GET " + path, "PATCH " + path + "/status"}},
		{"both", replicas(3, 8), objects.Updated, []string{"GET " + path, "PATCH " + path, "PATCH " + path + "/status"}},
	}
	for _, st := range steps {
		_, res, err := objects.CreateOrPatch(ctx, deps, key, st.mutate)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if res != st.want {
			t.Errorf("%s: result %s, want %s", st.name, res, st.want)
		}
		if m := log.take(); !slices.Equal(m, st.methods) {
			t.Errorf("%s: requests %v, want %v", st.name, m, st.methods)
		}
	}
	final, err := deps.Namespace("app").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *final.Spec.Replicas != 3 || final.Status.ObservedGeneration != 8 {
		t.Errorf("stored replicas %d, observedGeneration %d; want 3 and 8", *final.Spec.Replicas, final.Status.ObservedGeneration)
	}
}

// PatchStatus from a stale copy succeeds where UpdateStatus conflicts.
func TestPatchStatusFromAStaleCopy(t *testing.T) {
	c, _ := fakeClient(t)
	deps := client.Typed[*appsv1.Deployment](c).Namespace("app")
	ctx := context.Background()
	n := int32(1)
	d, err := deps.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := d.DeepCopy()
	// Someone else writes first: the copy is now stale.
	d.Labels = map[string]string{"touched": "yes"}
	if _, err := deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := stale.DeepCopy()
	// A status kube-apiserver accepts: available within ready within replicas.
	next.Status.Replicas, next.Status.ReadyReplicas, next.Status.AvailableReplicas = 2, 2, 1
	if _, err := deps.UpdateStatus(ctx, next, metav1.UpdateOptions{}); err == nil {
		t.Fatal("UpdateStatus from a stale copy succeeded; the test needs it to conflict")
	}
	got, err := objects.PatchStatus(ctx, deps, stale, next, objects.PatchOptions{})
	if err != nil {
		t.Fatalf("PatchStatus: %v", err)
	}
	if got.Status.AvailableReplicas != 1 || got.Labels["touched"] != "yes" {
		t.Errorf("after PatchStatus: availableReplicas %d, labels %v", got.Status.AvailableReplicas, got.Labels)
	}
	// With the optimistic lock, the stale copy conflicts again.
	next.Status.AvailableReplicas = 2
	if _, err := objects.PatchStatus(ctx, deps, stale, next, objects.PatchOptions{OptimisticLock: true}); err == nil {
		t.Error("PatchStatus with OptimisticLock from a stale copy succeeded")
	}
}
