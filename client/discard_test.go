package client_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

func TestDiscardResultsWritesDoNotDecode(t *testing.T) {
	// An answer no ConfigMap decodes from: only a write that does not
	// decode it succeeds.
	undecodable := func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":7}}`))
	}
	conflict := func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeJSON(w, 409, status(409, "Conflict"))
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x"}}
	writes := []struct {
		name  string
		write func(r *client.Resource[*corev1.ConfigMap]) (*corev1.ConfigMap, error)
	}{
		{"create", func(r *client.Resource[*corev1.ConfigMap]) (*corev1.ConfigMap, error) {
			return r.Create(t.Context(), cm, metav1.CreateOptions{})
		}},
		{"update", func(r *client.Resource[*corev1.ConfigMap]) (*corev1.ConfigMap, error) {
			return r.Update(t.Context(), cm, metav1.UpdateOptions{})
		}},
		{"update status", func(r *client.Resource[*corev1.ConfigMap]) (*corev1.ConfigMap, error) {
			return r.UpdateStatus(t.Context(), cm, metav1.UpdateOptions{})
		}},
		{"patch", func(r *client.Resource[*corev1.ConfigMap]) (*corev1.ConfigMap, error) {
			return r.Namespace("ns").Patch(t.Context(), "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			f, c := newFake(t, client.Options{})
			r := client.Typed[*corev1.ConfigMap](c)

			f.respond = undecodable
			if _, err := w.write(r); err == nil {
				t.Fatal("the decoding write accepted an undecodable answer")
			}
			got, err := w.write(r.DiscardResults())
			if err != nil || got != nil {
				t.Fatalf("discarding write = %v, %v; want nil, nil", got, err)
			}

			f.respond = conflict
			if _, err := w.write(r.DiscardResults()); !apierrors.IsConflict(err) {
				t.Fatalf("discarding write on a 409 = %v, want a conflict", err)
			}
			if n := len(f.requests()); n != 3 {
				t.Fatalf("%d requests, want 3", n)
			}
		})
	}
}

// BenchmarkPatchStatusResult patches a Deployment's status against a local
// server answering with the whole Deployment (JSON, as for a custom
// resource; protobuf for built-ins), decoding the answer or not.
func BenchmarkPatchStatusResult(b *testing.B) {
	r := int32(3)
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo-00001-dep", UID: "0d6c4a4e-3a2b-4c1d-9e8f-000000000001", ResourceVersion: "123456", Labels: map[string]string{"app": "nginx", "controller": "foo-00001"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &r,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx", "controller": "foo-00001"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx", "controller": "foo-00001"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
		Status: appsv1.DeploymentStatus{Replicas: 3, AvailableReplicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3},
	}
	var body bytes.Buffer
	if err := json.NewEncoder(&body).Encode(dep); err != nil {
		b.Fatal(err)
	}
	f := &fakeServer{respond: func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body.Bytes())
	}}
	rc, err := rest.NewClient(&rest.Config{Host: newHTTPServer(b, f), MaxRetries: -1, ContentType: rest.ContentTypeJSON})
	if err != nil {
		b.Fatal(err)
	}
	deps := client.Typed[*appsv1.Deployment](client.New(rc, client.Options{})).Namespace("ns")
	patch := []byte(`{"status":{"availableReplicas":3}}`)
	for _, bc := range []struct {
		name string
		r    *client.Resource[*appsv1.Deployment]
	}{{"decoded", deps}, {"discarded", deps.DiscardResults()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.r.Patch(b.Context(), dep.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestWritesOfABuiltinKindAskForProtobufRepeatedly(t *testing.T) {
	// Each request of a built-in kind is told its answer's Go type, so it
	// negotiates protobuf: the first and every later one, decoding or not.
	f, c := newFake(t, client.Options{})
	f.respond = func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"kind": "Deployment", "apiVersion": "apps/v1", "metadata": map[string]any{"name": "x", "namespace": "ns"}})
	}
	r := client.Typed[*appsv1.Deployment](c).Namespace("ns")
	for _, res := range []*client.Resource[*appsv1.Deployment]{r, r.DiscardResults(), r, r.DiscardResults()} {
		if _, err := res.Patch(t.Context(), "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, q := range reqs {
		if !strings.HasPrefix(q.Accept, "application/vnd.kubernetes.protobuf") {
			t.Errorf("request %d: Accept %q, want protobuf first", i, q.Accept)
		}
	}
}
