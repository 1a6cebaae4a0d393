package informer

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestFromList(t *testing.T) {
	u := unstructured.Unstructured{}
	u.SetName("u1")
	ul := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{u}}
	ul.SetResourceVersion("7")
	tests := []struct {
		name     string
		list     runtime.Object
		wantName string
		wantRV   string
		wantCont string
	}{
		{name: "typed list items point into Items", list: &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5", Continue: "c"},
			Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p1"}}}}, wantName: "p1", wantRV: "5", wantCont: "c"},
		{name: "unstructured list", list: ul, wantName: "u1", wantRV: "7"},
		{name: "metadata list", list: &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "9"},
			Items: []metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}}}, wantName: "m1", wantRV: "9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fromList(tt.list)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != 1 || res.Items[0].GetName() != tt.wantName || res.ResourceVersion != tt.wantRV || res.Continue != tt.wantCont {
				t.Fatalf("FromList = %+v", res)
			}
		})
	}
	if pl := (&corev1.PodList{Items: []corev1.Pod{{}}}); true {
		res, _ := fromList(pl)
		if res.Items[0] != Object(&pl.Items[0]) {
			t.Fatal("typed item was copied")
		}
	}
	if _, err := fromList(&corev1.Pod{}); err == nil {
		t.Fatal("non-list accepted")
	}
}
