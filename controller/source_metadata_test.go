package controller

import (
	"strings"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/informer"
)

func meta(name string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels}}
}

// A ForMetadata source reconciles every object of the metadata-only
// informer, passes its events through the predicates, and shares its
// informer with informer.AcquireMetadata on the same factory.
func TestForMetadataReconcilesFromTheMetadataInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gvr := metav1.SchemeGroupVersion.WithResource("configmaps")
		src := newMemBackend(meta("a", nil), meta("b", nil))
		rec := &recorder{}
		s := ForMetadata{Resource: gvr, Predicates: []Predicate{LabelsChanged}}
		if got := s.String(); !strings.HasPrefix(got, "ForMetadata[") {
			t.Errorf("String() = %q", got)
		}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{s}})
		synctest.Wait()
		if got := rec.total(); got != 2 {
			t.Fatalf("reconciles after sync = %d, want 2", got)
		}
		src.write(meta("a", nil)) // same labels: filtered out
		synctest.Wait()
		if got := rec.total(); got != 2 {
			t.Fatalf("reconciles after an update without label change = %d, want 2", got)
		}
		src.write(meta("a", map[string]string{"x": "y"}))
		synctest.Wait()
		if got := rec.total(); got != 3 {
			t.Fatalf("reconciles after a label change = %d, want 3", got)
		}
		ks := h.ctl.sources[0].(*kindSource[*metav1.PartialObjectMetadata])
		shared, err := informer.AcquireMetadata(h.ctl.factory, gvr, informer.SharedOptions{})
		if err != nil || shared != ks.informer() {
			t.Errorf("informer.AcquireMetadata with the same options returned another informer (%v)", err)
		}
		shared.Release()
		h.stop(t)
	})
}
