package objects_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/objects"
)

func TestReference(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Widget")
	u.SetNamespace("ns")
	u.SetName("w")
	for _, tc := range []struct {
		name string
		obj  informer.Object
		want corev1.ObjectReference
		err  bool
	}{
		{"a cached typed object gets its kind from the resolver", deploy("ns", "web", "u1"),
			corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web", UID: "u1"}, false},
		{"an object naming its kind keeps it", u,
			corev1.ObjectReference{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "ns", Name: "w"}, false},
		{"a type the resolver does not know is an error", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, corev1.ObjectReference{}, true},
		{"an object without a name is an error", &appsv1.Deployment{}, corev1.ObjectReference{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := objects.Reference(tc.obj, known)
			if tc.err {
				if err == nil {
					t.Fatalf("Reference = %+v, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Reference = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := objects.Reference(&appsv1.Deployment{}, known); !errors.Is(err, objects.ErrNoName) {
		t.Fatalf("no name: %v, want ErrNoName", err)
	}
}
