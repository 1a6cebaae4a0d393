package sharding

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKeys(t *testing.T) {
	deploy := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	rs := schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	owner := &metav1.ObjectMeta{Namespace: "ns", Name: "web"}
	yes := true
	owned := &metav1.ObjectMeta{Namespace: "ns", Name: "web-123", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "other"}, // not the controller
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Controller: &yes},
	}}
	orphan := &metav1.ObjectMeta{Namespace: "ns", Name: "lonely"}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"an owned object is keyed as its controller", OwnerKey(rs, owned), ObjectKey(deploy, owner)},
		{"an owner is keyed as itself by OwnerKey", OwnerKey(deploy, owner), ObjectKey(deploy, owner)},
		{"an object without a controller is keyed as itself", OwnerKey(rs, orphan), ObjectKey(rs, orphan)},
		{"ObjectKey names kind, group, namespace and name", ObjectKey(rs, orphan), "ReplicaSet.apps/ns/lonely"},
		{"NamespaceKey is the namespace", NamespaceKey(rs, orphan), "ns"},
		{"a Namespace is keyed like its contents", NamespaceKey(schema.GroupKind{Kind: "Namespace"}, &metav1.ObjectMeta{Name: "ns"}), "ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestOptionsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"an empty ring", validRing("")},
		{"the reserved ring name", validRing("ring")},
		{"a ring that is no DNS label", validRing("My_Ring")},
		{"an empty identity", validIdentity("")},
		{"an identity that is no DNS label", validIdentity("pod/1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ce *ConfigError
			if !errors.As(tc.err, &ce) || !errors.Is(tc.err, ErrInvalidOptions) {
				t.Fatalf("got %v, want a *ConfigError", tc.err)
			}
		})
	}
	if err := validRing("configmaps"); err != nil {
		t.Fatal(err)
	}
	if err := validIdentity("replica-0"); err != nil {
		t.Fatal(err)
	}
}
