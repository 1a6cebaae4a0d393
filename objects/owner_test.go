package objects_test

import (
	"errors"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/objects"
)

// kinds is a KindResolver knowing a few Go types, as a client does.
type kinds map[reflect.Type]schema.GroupVersionKind

var errUnknown = errors.New("unknown type")

func (k kinds) KindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	if gvk, ok := k[reflect.TypeOf(obj)]; ok {
		return gvk, nil
	}
	return schema.GroupVersionKind{}, errUnknown
}

var known = kinds{
	reflect.TypeFor[*appsv1.Deployment](): appsv1.SchemeGroupVersion.WithKind("Deployment"),
	reflect.TypeFor[*corev1.Namespace]():  corev1.SchemeGroupVersion.WithKind("Namespace"),
}

func deploy(ns, name, uid string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: k8stypes.UID(uid)}}
}

func configMap(ns string, refs ...metav1.OwnerReference) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cfg", OwnerReferences: refs}}
}

func ptr[T any](v T) *T { return &v }

func TestSetControllerReference(t *testing.T) {
	webRef := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	other := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "u9", Controller: ptr(true)}
	plain := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "team", UID: "u5"}
	tests := []struct {
		name     string
		owner    informer.Object
		obj      *corev1.ConfigMap
		want     []metav1.OwnerReference
		wantErr  error
		wantType any
	}{
		{"adds a controller reference", deploy("app", "web", "u1"), configMap("app"),
			[]metav1.OwnerReference{webRef}, nil, nil},
		{"keeps other owners", deploy("app", "web", "u1"), configMap("app", plain),
			[]metav1.OwnerReference{plain, webRef}, nil, nil},
		{"updates the reference to the same owner", deploy("app", "web", "u1"),
			configMap("app", metav1.OwnerReference{APIVersion: "apps/v1beta1", Kind: "Deployment", Name: "web", UID: "old"}),
			[]metav1.OwnerReference{webRef}, nil, nil},
		{"refuses a second controller", deploy("app", "web", "u1"), configMap("app", other),
			[]metav1.OwnerReference{other}, objects.ErrAlreadyOwned, &objects.AlreadyOwnedError{}},
		{"refuses an owner without UID", deploy("app", "web", ""), configMap("app"),
			nil, objects.ErrInvalidOwner, nil},
		{"refuses an owner in another namespace", deploy("other", "web", "u1"), configMap("app"),
			nil, objects.ErrInvalidOwner, nil},
		{"refuses a namespaced owner of a cluster-scoped object", deploy("app", "web", "u1"), configMap(""),
			nil, objects.ErrInvalidOwner, nil},
		{"a cluster-scoped owner may own a namespaced object",
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "u5"}}, configMap("app"),
			[]metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "team", UID: "u5", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}, nil, nil},
		{"an owner of unknown kind is the resolver's error",
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "p", UID: "u7"}}, configMap("app"),
			nil, errUnknown, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := objects.SetControllerReference(tt.owner, tt.obj, known)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				if tt.wantType != nil {
					var ao *objects.AlreadyOwnedError
					if !errors.As(err, &ao) || ao.Owner.Name != "other" || ao.Name != "cfg" {
						t.Fatalf("error %#v, want *AlreadyOwnedError naming the current controller", err)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !reflect.DeepEqual(tt.obj.OwnerReferences, tt.want) {
				t.Errorf("ownerReferences\n got %+v\nwant %+v", tt.obj.OwnerReferences, tt.want)
			}
		})
	}
}

func TestSetOwnerReference(t *testing.T) {
	tests := []struct {
		name string
		obj  *corev1.ConfigMap
		want []metav1.OwnerReference
	}{
		{"adds a reference that does not control", configMap("app"),
			[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1"}}},
		{"keeps controller and blockOwnerDeletion of the existing reference",
			configMap("app", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}),
			[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}},
		{"does not mind another controller",
			configMap("app", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "u9", Controller: ptr(true)}),
			[]metav1.OwnerReference{
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "u9", Controller: ptr(true)},
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := objects.SetOwnerReference(deploy("app", "web", "u1"), tt.obj, known); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tt.obj.OwnerReferences, tt.want) {
				t.Errorf("ownerReferences\n got %+v\nwant %+v", tt.obj.OwnerReferences, tt.want)
			}
		})
	}
}

func TestFinalizers(t *testing.T) {
	const f = "example.com/cleanup"
	cm := configMap("app")
	if objects.HasFinalizer(cm, f) {
		t.Fatal("HasFinalizer on a new object")
	}
	if !objects.AddFinalizer(cm, f) || objects.AddFinalizer(cm, f) {
		t.Fatal("AddFinalizer must report a change once, then none")
	}
	if !objects.HasFinalizer(cm, f) || len(cm.Finalizers) != 1 {
		t.Fatalf("finalizers %v after AddFinalizer", cm.Finalizers)
	}
	cm.Finalizers = append(cm.Finalizers, "other", f)
	if !objects.RemoveFinalizer(cm, f) || objects.RemoveFinalizer(cm, f) {
		t.Fatal("RemoveFinalizer must report a change once, then none")
	}
	if !reflect.DeepEqual(cm.Finalizers, []string{"other"}) {
		t.Fatalf("finalizers %v, want [other]: every occurrence removed", cm.Finalizers)
	}
}

// The slice AddFinalizer is given is never written through: a cached
// object sharing it stays as it was.
func TestAddFinalizerDoesNotWriteThroughASharedSlice(t *testing.T) {
	shared := make([]string, 1, 4)
	shared[0] = "a"
	cm := configMap("app")
	cm.Finalizers = shared
	objects.AddFinalizer(cm, "b")
	if got := shared[:2][1]; got != "" {
		t.Fatalf("AddFinalizer wrote %q into the caller's backing array", got)
	}
}
