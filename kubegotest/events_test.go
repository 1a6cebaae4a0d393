package kubegotest_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
)

func TestEventsAboutAnObject(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}})
	defer srv.Close()
	c, err := client.NewForConfig(srv.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web", UID: "u-web"}}
	ref := func(name, uid string) corev1.ObjectReference {
		return corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "app", Name: name, UID: k8stypes.UID(uid)}
	}
	evs := client.Typed[*eventsv1.Event](c).Namespace("app")
	now := metav1.NewMicroTime(time.Now())
	for _, ev := range []*eventsv1.Event{
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Regarding: ref("web", "u-web"), Reason: "Scaled", Action: "Scale", Type: "Normal", EventTime: now, ReportingController: "t", ReportingInstance: "t"},
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Regarding: ref("db", "u-db"), Reason: "Scaled", Action: "Scale", Type: "Normal", EventTime: now, ReportingController: "t", ReportingInstance: "t"},
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Regarding: ref("web", "u-old"), Reason: "Old", Action: "Scale", Type: "Normal", EventTime: now, ReportingController: "t", ReportingInstance: "t"},
	} {
		if _, err := evs.Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := kubegotest.Events(ctx, c, web)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "a" {
		t.Fatalf("Events about web: %v, want only a (db is another object, c is about an earlier web)", names(got))
	}
	cores := client.Typed[*corev1.Event](c).Namespace("app")
	if _, err := cores.Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "d"}, InvolvedObject: ref("web", "u-web"), Reason: "Core", Type: "Normal"}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	core, err := kubegotest.CoreEvents(ctx, c, web)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range core {
		found = found || ev.Name == "d"
		if ev.InvolvedObject.UID != "u-web" {
			t.Errorf("CoreEvents returned %s about %s", ev.Name, ev.InvolvedObject.UID)
		}
	}
	if !found {
		t.Errorf("CoreEvents about web lacks d")
	}
	// Without a UID, namespace and name decide. d, written through
	// core/v1, is in the same storage.
	byName, err := kubegotest.Events(context.Background(), c, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web"}})
	if err != nil || len(byName) != 3 {
		t.Fatalf("Events about app/web without UID: %v, %v; want a, c and d", names(byName), err)
	}
}

func names(evs []eventsv1.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Name)
	}
	return out
}
