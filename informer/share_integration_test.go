package informer_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/testenv"
)

// Objects that arrive by watch from a real server share their equal values
// as they are decoded: in the initial state and in later events alike, with
// and without a Transform (which moves sharing after the transform).
func TestIntegrationCachedObjectsShareValues(t *testing.T) {
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	pods := client.Typed[*corev1.Pod](c).Namespace(ns)
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web", "tier": "front"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "web", Image: "registry.example.com/web:1.2.3",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
			}}},
		}
	}
	for i := range 3 {
		if _, err := pods.Create(t.Context(), pod(fmt.Sprintf("before-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts informer.SharedOptions
	}{
		{"shared while decoding", informer.SharedOptions{Namespace: ns, Decoded: true}},
		{"shared after a transform", informer.SharedOptions{Namespace: ns, Decoded: true, Transform: func(o informer.Object) informer.Object { return o }}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewFactory(c, informer.FactoryOptions{})
			inf := mustAcquire(informer.Acquire[*corev1.Pod](f, tt.opts))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer func() { cancel(); f.Wait() }()
			f.Start(ctx)
			if err := f.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			late := "after-" + fmt.Sprint(len(tt.name))
			if _, err := pods.Create(ctx, pod(late), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			lister := inf.Lister().Namespace(ns)
			for {
				if _, ok := lister.Get(late); ok {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("the new pod never reached the cache")
				case <-time.After(20 * time.Millisecond):
				}
			}
			names := []string{"before-0", "before-1", "before-2", late}
			var got []*corev1.Pod
			for _, n := range names {
				p, _ := lister.Get(n)
				got = append(got, p)
			}
			// The first copy may stay with its object (a value enters the
			// table on its second sighting); every later one is shared.
			ref := got[1]
			for _, p := range got[2:] {
				if reflect.ValueOf(p.Labels).UnsafePointer() != reflect.ValueOf(ref.Labels).UnsafePointer() {
					t.Errorf("%s: labels map not shared", p.Name)
				}
				if unsafe.StringData(p.Spec.Containers[0].Image) != unsafe.StringData(ref.Spec.Containers[0].Image) {
					t.Errorf("%s: image string not shared", p.Name)
				}
				if reflect.ValueOf(p.Spec.Containers[0].Resources.Limits).UnsafePointer() != reflect.ValueOf(ref.Spec.Containers[0].Resources.Limits).UnsafePointer() {
					t.Errorf("%s: resource list not shared", p.Name)
				}
				if p.Spec.Containers[0].Resources.Limits.Cpu().String() != "500m" {
					t.Errorf("%s: cpu limit %v", p.Name, p.Spec.Containers[0].Resources.Limits.Cpu())
				}
			}
		})
	}
}
