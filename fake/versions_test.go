package fake_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// Options.AllVersions serves the alpha and beta versions too, as a server
// whose --runtime-config enables them; the default does not (the
// conformance case OnlyGAVersionsOfBuiltinGroupsAreServed checks the
// default against kube-apiserver).
func TestAllVersionsServesBetaVersions(t *testing.T) {
	for _, all := range []bool{false, true} {
		srv := fake.NewServer(fake.Options{AllVersions: all})
		c := client(t, srv, rest.ContentTypeJSON)
		var list metav1.APIResourceList
		err := c.Get().AbsPath("/apis/batch/v1beta1").Do(ctxT(t)).Into(&list)
		if served := err == nil; served != all {
			t.Errorf("AllVersions %v: batch/v1beta1 served %v (%v)", all, served, err)
		}
		if err := c.Get().AbsPath("/apis/batch/v1").Do(ctxT(t)).Into(&list); err != nil {
			t.Errorf("AllVersions %v: batch/v1: %v", all, err)
		}
		srv.Close()
	}
}

// With AllVersions, every served version of Events is a view of the one
// storage: an Event written through events.k8s.io/v1 is read through
// events.k8s.io/v1beta1 and core/v1, and deleted from all three at once.
func TestEventsAreOneStorageInEveryServedVersion(t *testing.T) {
	srv := fake.NewServer(fake.Options{AllVersions: true})
	defer srv.Close()
	c := client(t, srv, rest.ContentTypeJSON)
	ctx := ctxT(t)
	events := func(version string) *rest.Request {
		return c.Get().Group("events.k8s.io").Version(version).Namespace("default").Resource("events")
	}
	if err := c.Post().Group("events.k8s.io").Version("v1").Namespace("default").Resource("events").
		Body(&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Note: "hello", Reason: "Tested"}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	var beta eventsv1beta1.Event
	if err := events("v1beta1").Name("e").Do(ctx).Into(&beta); err != nil || beta.Note != "hello" {
		t.Fatalf("through events.k8s.io/v1beta1: %+v, %v", beta, err)
	}
	var core corev1.Event
	if err := c.Get().Namespace("default").Resource("events").Name("e").Do(ctx).Into(&core); err != nil || core.Message != "hello" {
		t.Fatalf("through core/v1: %+v, %v", core, err)
	}
	if err := c.Delete().Group("events.k8s.io").Version("v1beta1").Namespace("default").Resource("events").Name("e").Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1", "v1beta1"} {
		if err := events(v).Name("e").Do(ctx).Error(); err == nil {
			t.Errorf("events.k8s.io/%s still has the deleted Event", v)
		}
	}
}
