package objects_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/objects"
)

func TestOwnerIndexMapsObjectsToTheirOwnersKeys(t *testing.T) {
	yes, no := true, false
	cronJob := schema.GroupKind{Group: "batch.example.com", Kind: "CronJob"}
	ref := func(apiVersion, kind, name string, controller *bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: controller}
	}
	tests := []struct {
		name string
		refs []metav1.OwnerReference
		opts objects.OwnerIndexOptions
		want []string
	}{
		{"an owner of the kind, in the object's namespace", []metav1.OwnerReference{ref("batch.example.com/v1", "CronJob", "nightly", &yes)}, objects.OwnerIndexOptions{}, []string{"team-a/nightly"}},
		{"any version of the group", []metav1.OwnerReference{ref("batch.example.com/v2beta1", "CronJob", "nightly", nil)}, objects.OwnerIndexOptions{}, []string{"team-a/nightly"}},
		{"another group's kind of the same name is not indexed", []metav1.OwnerReference{ref("batch/v1", "CronJob", "nightly", &yes)}, objects.OwnerIndexOptions{}, nil},
		{"another kind is not indexed", []metav1.OwnerReference{ref("batch.example.com/v1", "Schedule", "nightly", &yes)}, objects.OwnerIndexOptions{}, nil},
		{"every owner of the kind", []metav1.OwnerReference{ref("batch.example.com/v1", "CronJob", "a", &yes), ref("batch.example.com/v1", "CronJob", "b", &no)}, objects.OwnerIndexOptions{}, []string{"team-a/a", "team-a/b"}},
		{"the controller only", []metav1.OwnerReference{ref("batch.example.com/v1", "CronJob", "a", &no), ref("batch.example.com/v1", "CronJob", "b", &yes)}, objects.OwnerIndexOptions{ControllerOnly: true}, []string{"team-a/b"}},
		{"a cluster-scoped owner by name", []metav1.OwnerReference{ref("batch.example.com/v1", "CronJob", "nightly", &yes)}, objects.OwnerIndexOptions{ClusterScoped: true}, []string{"nightly"}},
		{"an unreadable apiVersion is skipped", []metav1.OwnerReference{ref("a/b/c", "CronJob", "nightly", &yes)}, objects.OwnerIndexOptions{}, nil},
		{"no owners", nil, objects.OwnerIndexOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "p", OwnerReferences: tt.refs}}
			if got := objects.OwnerIndex(cronJob, tt.opts)(pod); !slices.Equal(got, tt.want) {
				t.Errorf("values = %q, want %q", got, tt.want)
			}
		})
	}
}
