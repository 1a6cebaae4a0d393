package client_test

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

func TestDeepCopyIsIndependent(t *testing.T) {
	r := int32(3)
	orig := &Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}, CreationTimestamp: metav1.Now()},
		Spec: WidgetSpec{Size: 2, Tags: []string{"x"}, Labels: map[string]string{"k": "v"},
			Memory: resource.MustParse("1Gi"), Parent: &WidgetSpec{Size: 1}, Replicas: &r},
	}
	cp := orig.DeepCopyObject().(*Widget)
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("copy differs:\n%+v\n%+v", orig, cp)
	}
	cp.Labels["a"] = "changed"
	cp.Spec.Tags[0] = "changed"
	cp.Spec.Labels["k"] = "changed"
	cp.Spec.Parent.Size = 9
	*cp.Spec.Replicas = 9
	cp.Spec.Memory.Add(resource.MustParse("1Gi"))
	if orig.Labels["a"] != "b" || orig.Spec.Tags[0] != "x" || orig.Spec.Labels["k"] != "v" || orig.Spec.Parent.Size != 1 || *orig.Spec.Replicas != 3 || orig.Spec.Memory.String() != "1Gi" {
		t.Fatalf("original changed through the copy: %+v", orig)
	}
	var nilW *Widget
	if client.DeepCopy(nilW) != nil {
		t.Fatal("copy of nil is not nil")
	}
}

func BenchmarkDeepCopyWidget(b *testing.B) {
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}}, Spec: WidgetSpec{Tags: []string{"x", "y"}, Memory: resource.MustParse("1Gi")}}
	b.ReportAllocs()
	for b.Loop() {
		_ = client.DeepCopy(w)
	}
}
