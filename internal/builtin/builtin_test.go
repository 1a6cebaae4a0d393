package builtin

import (
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type Deployment struct{} // a type of another package with a built-in kind's name

func TestKindsOfFindsBuiltinTypesOnly(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want []schema.GroupVersionKind
	}{
		{"pointer to a built-in kind", reflect.TypeFor[*appsv1.Deployment](), []schema.GroupVersionKind{appsv1.SchemeGroupVersion.WithKind("Deployment")}},
		{"struct of a built-in kind", reflect.TypeFor[corev1.Pod](), []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("Pod")}},
		{"built-in list kind", reflect.TypeFor[*corev1.PodList](), []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("PodList")}},
		{"built-in type that is no kind", reflect.TypeFor[*appsv1.DeploymentSpec](), nil},
		{"meta type", reflect.TypeFor[*metav1.Status](), nil},
		{"same name in another package", reflect.TypeFor[*Deployment](), nil},
		{"not a struct", reflect.TypeFor[*string](), nil},
		{"nil type", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindsOf(tt.typ); !slices.Equal(got, tt.want) {
				t.Fatalf("KindsOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsGroupVersionKnowsBuiltinGroupsOnly(t *testing.T) {
	tests := []struct {
		gv   schema.GroupVersion
		want bool
	}{
		{schema.GroupVersion{Version: "v1"}, true},
		{schema.GroupVersion{Group: "apps", Version: "v1"}, true},
		{schema.GroupVersion{Group: "apps", Version: "v9"}, false},
		{schema.GroupVersion{Group: "example.com", Version: "v1"}, false},
	}
	for _, tt := range tests {
		if got := IsGroupVersion(tt.gv); got != tt.want {
			t.Errorf("IsGroupVersion(%v) = %v, want %v", tt.gv, got, tt.want)
		}
	}
}

func TestTableIsSorted(t *testing.T) {
	for i := 1; i < len(kinds); i++ {
		a, b := kinds[i-1], kinds[i]
		if a.pkg > b.pkg || (a.pkg == b.pkg && a.name > b.name) {
			t.Fatalf("row %d (%s.%s) is before row %d (%s.%s)", i-1, a.pkg, a.name, i, b.pkg, b.name)
		}
	}
}
