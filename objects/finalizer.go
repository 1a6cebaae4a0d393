package objects

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AddFinalizer adds finalizer to obj's finalizers unless it is there, and
// reports whether it changed obj (and so needs writing).
func AddFinalizer(obj metav1.Object, finalizer string) bool {
	fs := obj.GetFinalizers()
	if slices.Contains(fs, finalizer) {
		return false
	}
	obj.SetFinalizers(append(slices.Clip(fs), finalizer))
	return true
}

// RemoveFinalizer removes every occurrence of finalizer from obj's
// finalizers and reports whether it changed obj.
func RemoveFinalizer(obj metav1.Object, finalizer string) bool {
	fs := obj.GetFinalizers()
	if !slices.Contains(fs, finalizer) {
		return false
	}
	out := make([]string, 0, len(fs)-1)
	for _, f := range fs {
		if f != finalizer {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = nil
	}
	obj.SetFinalizers(out)
	return true
}

// HasFinalizer reports whether obj has finalizer.
func HasFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}
