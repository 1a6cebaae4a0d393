package informer

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Targets lists every informer declared, acquired or read through a
// Reader, each once, released ones included.
func TestTargetsListsEveryInformerAskedFor(t *testing.T) {
	f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	if err := f.Declare(Declare[*corev1.Secret](SharedOptions{Namespace: "a"})); err != nil {
		t.Fatal(err)
	}
	pods, err := Acquire[*corev1.Pod](f, SharedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods.Release()
	if _, err := Acquire[*corev1.Pod](f, SharedOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMetadataReader(f, cms, ReaderOptions{Lazy: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReader[*corev1.Secret](f, ReaderOptions{Lazy: true}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range f.Targets() {
		got = append(got, tg.String())
	}
	want := []string{
		Target{Type: reflect.TypeFor[*corev1.Pod]()}.String(),
		Target{Type: reflect.TypeFor[*corev1.Secret](), Namespace: "a"}.String(),
		Target{Resource: cms, Form: Metadata}.String(),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Targets = %q, want %q", got, want)
	}
}
