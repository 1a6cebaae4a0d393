package informer

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestDeclare(t *testing.T) {
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	for _, tc := range []struct {
		name string
		one  bool // OneInformerPerType
		run  func(t *testing.T, f *Factory)
	}{
		{"a request without options gets the declared informer", true, func(t *testing.T, f *Factory) {
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a", LabelSelector: "app"})); err != nil {
				t.Fatal(err)
			}
			inf, err := Acquire[*corev1.ConfigMap](f, SharedOptions{})
			if err != nil {
				t.Fatal(err)
			}
			same, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "a", LabelSelector: "app"})
			if err != nil || same != inf {
				t.Fatalf("the declared options asked explicitly: %p, %v; want the same informer %p", same, err, inf)
			}
		}},
		{"other options are refused", true, func(t *testing.T, f *Factory) {
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"})); err != nil {
				t.Fatal(err)
			}
			var ce *OptionsConflictError
			if _, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "b"}); !errors.As(err, &ce) || ce.Field != "Namespace" {
				t.Fatalf("Acquire of another namespace: %v, want a conflict on Namespace", err)
			}
		}},
		{"a type declared twice is refused and nothing is recorded", true, func(t *testing.T, f *Factory) {
			err := f.Declare(Declare[*corev1.Secret](SharedOptions{}), Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"}), Declare[*corev1.ConfigMap](SharedOptions{Namespace: "b"}))
			if !errors.Is(err, ErrDeclared) {
				t.Fatalf("Declare: %v, want ErrDeclared", err)
			}
			if _, err := Acquire[*corev1.Secret](f, SharedOptions{Namespace: "x"}); err != nil {
				t.Fatalf("the refused call recorded a declaration: %v", err)
			}
		}},
		{"a declaration after use with other options is refused", true, func(t *testing.T, f *Factory) {
			if _, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "a"}); err != nil {
				t.Fatal(err)
			}
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "b"})); !errors.Is(err, ErrDeclared) || !errors.Is(err, ErrOptionsConflict) {
				t.Fatalf("Declare: %v, want ErrDeclared wrapping the conflict", err)
			}
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"})); err != nil {
				t.Fatalf("a declaration agreeing with the use: %v", err)
			}
		}},
		{"forms are declared apart", true, func(t *testing.T, f *Factory) {
			if err := f.Declare(DeclareMetadata(widgets, SharedOptions{Namespace: "m"}), DeclareResource(widgets, SharedOptions{Namespace: "u"})); err != nil {
				t.Fatal(err)
			}
			if _, err := AcquireMetadata(f, widgets, SharedOptions{Namespace: "m"}); err != nil {
				t.Fatal(err)
			}
			if _, err := AcquireResource(f, widgets, SharedOptions{Namespace: "m"}); !errors.Is(err, ErrOptionsConflict) {
				t.Fatalf("unstructured widgets in the metadata informer's namespace: %v, want a conflict", err)
			}
		}},
		{"a declared resource reaches a typed request without options", true, func(t *testing.T, f *Factory) {
			other := schema.GroupVersionResource{Version: "v1", Resource: "otherconfigmaps"}
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Resource: other})); err != nil {
				t.Fatal(err)
			}
			inf, err := Acquire[*corev1.ConfigMap](f, SharedOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := inf.Name(), targetOf(reflect.TypeFor[*corev1.ConfigMap](), Typed, other, "").String(); got != want {
				t.Fatalf("informer %q, want %q", got, want)
			}
		}},
		{"without OneInformerPerType other options get another informer", false, func(t *testing.T, f *Factory) {
			if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"})); err != nil {
				t.Fatal(err)
			}
			a, err := Acquire[*corev1.ConfigMap](f, SharedOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "b"})
			if err != nil || b == a {
				t.Fatalf("Acquire of another namespace: %p, %v; want another informer than %p", b, err, a)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: tc.one}))
		})
	}
}
