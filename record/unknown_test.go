package record

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type runtime0 = runtime.Object

// unknown is a type no scheme knows.
type unknown struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (u *unknown) DeepCopyObject() runtime.Object {
	c := *u
	u.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}
