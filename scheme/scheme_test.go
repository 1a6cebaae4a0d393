package scheme

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestBuiltinRegistration(t *testing.T) {
	s := runtime.NewScheme()
	for i, add := range builtinAdders {
		if err := add(s); err != nil {
			t.Fatalf("adder %d: %v", i, err)
		}
	}
}

func TestDefaultKnowsBuiltinKinds(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		want schema.GroupVersionKind
	}{
		{"core pod", &corev1.Pod{}, corev1.SchemeGroupVersion.WithKind("Pod")},
		{"apps deployment", &appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithKind("Deployment")},
		{"meta status", &metav1.Status{}, schema.GroupVersionKind{Version: "v1", Kind: "Status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gvks, _, err := Default().ObjectKinds(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, g := range gvks {
				found = found || g == tt.want
			}
			if !found {
				t.Fatalf("kinds %v, want %v among them", gvks, tt.want)
			}
		})
	}
}

func TestNewReturnsIndependentSchemes(t *testing.T) {
	a, b := New(), New()
	if a == b || a == Default() {
		t.Fatal("New must return a fresh scheme each time")
	}
}
