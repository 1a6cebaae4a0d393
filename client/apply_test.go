package client_test

import (
	"encoding/json"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/client"
)

func TestApplyMap(t *testing.T) {
	replicas := int32(0)
	tests := []struct {
		name   string
		config any
		want   string
	}{
		{"typed object loses nulls and empty objects", &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "c", Image: "i"}},
			}}},
		}, `{"metadata":{"name":"d"},"spec":{"replicas":0,"selector":null,"template":{"spec":{"containers":[{"image":"i","name":"c"}]}}}}`},
		{"map is kept as is", map[string]any{"metadata": map[string]any{"name": "m"}, "spec": map[string]any{}}, `{"metadata":{"name":"m"},"spec":{}}`},
		{"unstructured is kept as is", &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "u"}}}, `{"metadata":{"name":"u"}}`},
		{"JSON bytes", []byte(`{"metadata":{"name":"b"}}`), `{"metadata":{"name":"b"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := client.ApplyMap(tt.config)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			_ = json.Unmarshal([]byte(tt.want), &want)
			// "selector": null in want documents the pruning: drop it.
			if spec, ok := want["spec"].(map[string]any); ok && spec["selector"] == nil {
				delete(spec, "selector")
			}
			got, _ := json.Marshal(m)
			wantJSON, _ := json.Marshal(want)
			if string(got) != string(wantJSON) {
				t.Fatalf("got  %s\nwant %s", got, wantJSON)
			}
		})
	}
}

func TestApplyMapRejectsNonObjects(t *testing.T) {
	for _, in := range []any{nil, []byte("[1]"), []byte("null"), []byte("{"), map[string]any{"f": func() {}}} {
		if _, err := client.ApplyMap(in); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("ApplyMap(%T) error %v, want ErrInvalidArgument", in, err)
		}
	}
}

func FuzzApplyMap(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a"},"spec":{"x":null,"y":{}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := client.ApplyMap(data)
		if err != nil {
			if !errors.Is(err, client.ErrInvalidArgument) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if m == nil {
			t.Fatal("nil map without error")
		}
	})
}
