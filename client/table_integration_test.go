package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/testenv"
)

// The generated table of built-in kinds must agree with what a real server
// serves: same resource name and scope for every kind of every
// group/version the server serves, and no served built-in resource
// missing from the table.
func TestBuiltinTableMatchesServerDiscovery(t *testing.T) {
	e := setup(t, client.Options{})
	snap, err := discovery.New(e.rc, discovery.Options{}).Snapshot(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	servedGV := map[schema.GroupVersion]bool{}
	served := map[schema.GroupVersionKind]discovery.Resource{}
	for _, g := range snap.Groups {
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			servedGV[gv] = true
			for _, r := range v.Resources {
				if r.Kind.GroupVersion() == gv {
					served[r.Kind] = r
				}
			}
		}
	}
	// An older kube-apiserver does not serve the kinds added after it, in
	// group/versions it already serves: those are listed, not errors.
	older := testenv.Shared(t).Version() != testenv.DefaultVersion
	var newer []string
	tableGV := map[schema.GroupVersion]bool{}
	checked := 0
	client.BuiltinKinds(func(m client.Mapping) bool {
		tableGV[m.Kind.GroupVersion()] = true
		if !servedGV[m.Kind.GroupVersion()] {
			return true // alpha/beta versions off by default
		}
		r, ok := served[m.Kind]
		switch {
		case !ok && older:
			newer = append(newer, m.Kind.String())
		case !ok:
			t.Errorf("table has %v → %s, server does not serve the kind", m.Kind, m.Resource.Resource)
		case r.Name != m.Resource.Resource || r.Namespaced != m.Namespaced:
			t.Errorf("%v: table says %s namespaced=%v, server says %s namespaced=%v", m.Kind, m.Resource.Resource, m.Namespaced, r.Name, r.Namespaced)
		default:
			checked++
		}
		return true
	})
	for gvk, r := range served {
		if !tableGV[gvk.GroupVersion()] || strings.Contains(r.Name, "/") {
			continue
		}
		// core/v1 bindings is a create-only alias of pods/binding with no
		// client of its own upstream either (no +genclient marker).
		if gvk.Kind == "Binding" && gvk.Group == "" {
			continue
		}
		if _, ok := client.Builtin(gvk); !ok {
			t.Errorf("server serves %v as %s; the table lacks it", gvk, r.Name)
		}
	}
	t.Logf("checked %d built-in kinds against discovery", checked)
	if len(newer) > 0 {
		t.Logf("kube-apiserver %s does not serve %d newer kinds: %v", testenv.Shared(t).Version(), len(newer), newer)
	}
	if checked < 50 {
		t.Fatalf("only %d kinds checked", checked)
	}
}

// A Client is an informer Backend: informer.Shared[*corev1.Pod] works end to
// end against a real server.
func TestInformerOverTheTypedClient(t *testing.T) {
	e := setup(t, client.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods := client.Typed[*corev1.Pod](e.c).Namespace(e.ns)
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "before"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(e.c, informer.FactoryOptions{})
	inf, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{Namespace: e.ns})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Lister().Namespace(e.ns).Get("before"); !ok {
		t.Fatal("synced cache lacks the pod created before start")
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		if len(inf.Lister().List(labels.Everything())) == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("watch never delivered the second pod")
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	if err := f.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
