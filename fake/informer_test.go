package fake_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kclient "github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// TestServesTheGenericClientAndAnInformer checks the fake against kubego's
// own stack: client.Resource for writes, an informer (list, then watch) for
// reads.
func TestServesTheGenericClientAndAnInformer(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "seed"}})
	defer srv.Close()
	rc, err := rest.NewClient(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	pods := kclient.Typed[*corev1.Pod](kclient.New(rc, kclient.Options{})).Namespace("default")
	inf := informer.New(pods.ListerWatcher(), informer.Options[*corev1.Pod]{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Lister().Namespace("default").Get("seed"); !ok {
		t.Fatal("seeded pod not in the cache after sync")
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if n := len(inf.Lister().List(labels.Everything())); n != 2 {
			return fmt.Errorf("the informer holds %d pods, want the seed and the created one", n)
		}
		return nil
	})
	cancel()
	<-done
}
