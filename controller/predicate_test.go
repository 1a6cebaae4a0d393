package controller

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/informer"
)

func TestPredicates(t *testing.T) {
	obj := func(gen int64, labels, annotations map[string]string, rv string) metav1.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Generation: gen, Labels: labels, Annotations: annotations, ResourceVersion: rv}}
	}
	base := obj(1, map[string]string{"a": "1"}, map[string]string{"n": "1"}, "10")
	update := func(o metav1.Object) Event { return Event{Type: Update, Old: base, Object: o} }
	tests := []struct {
		name string
		p    Predicate
		e    Event
		want bool
	}{
		{"GenerationChanged passes creates", GenerationChanged, Event{Type: Create, Object: base}, true},
		{"GenerationChanged passes deletes", GenerationChanged, Event{Type: Delete, Object: base}, true},
		{"GenerationChanged passes a spec change", GenerationChanged, update(obj(2, nil, nil, "11")), true},
		{"GenerationChanged drops a metadata change", GenerationChanged, update(obj(1, nil, nil, "11")), false},
		{"LabelsChanged passes a new label", LabelsChanged, update(obj(1, map[string]string{"a": "2"}, nil, "11")), true},
		{"LabelsChanged drops equal labels", LabelsChanged, update(obj(2, map[string]string{"a": "1"}, nil, "11")), false},
		{"LabelsChanged treats nil and empty alike", LabelsChanged, Event{Type: Update, Old: obj(1, nil, nil, ""), Object: obj(1, map[string]string{}, nil, "")}, false},
		{"AnnotationsChanged passes a change", AnnotationsChanged, update(obj(1, map[string]string{"a": "1"}, nil, "11")), true},
		{"AnnotationsChanged drops equal annotations", AnnotationsChanged, update(obj(1, nil, map[string]string{"n": "1"}, "11")), false},
		{"ResourceVersionChanged drops a resync", ResourceVersionChanged, update(base), false},
		{"ResourceVersionChanged passes a write", ResourceVersionChanged, update(obj(1, nil, nil, "11")), true},
		{"And needs all", And(GenerationChanged, LabelsChanged), update(obj(2, map[string]string{"a": "1"}, nil, "11")), false},
		{"And of nothing passes", And(), update(base), true},
		{"Or needs one", Or(GenerationChanged, LabelsChanged), update(obj(2, map[string]string{"a": "1"}, nil, "11")), true},
		{"Or of nothing drops", Or(), update(base), false},
		{"Not inverts", Not(LabelsChanged), update(base), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p(tt.e); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTerminalError(t *testing.T) {
	inner := &PanicError{Value: "x"}
	err := TerminalError(inner)
	var pe *PanicError
	if !errorsIs(err, ErrTerminal) || !errorsAs(err, &pe) || pe != inner {
		t.Fatalf("TerminalError(%v) = %v: does not wrap both", inner, err)
	}
	if !errorsIs(TerminalError(nil), ErrTerminal) || TerminalError(nil).Error() != ErrTerminal.Error() {
		t.Fatal("TerminalError(nil) is not a bare terminal error")
	}
	if got := (Request{Key: informer.Key{Name: "n"}}).String(); got != "n" {
		t.Fatalf("cluster-scoped Request.String = %q", got)
	}
	if got := (Request{Key: informer.Key{Namespace: "ns", Name: "n"}}).String(); got != "ns/n" {
		t.Fatalf("Request.String = %q", got)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }
