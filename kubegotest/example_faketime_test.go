package kubegotest_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
)

// A controller that requeues itself every 10 minutes, tested over a day
// of fake time: the whole Manager runs in a synctest bubble against the
// in-process fake, Start runs it for the test, and Settle waits until
// everything each step caused has run. The body is that of a test
// function (t is the test's *testing.T); examples/scheduled runs a test
// of this shape.
func Example_fakeTime() {
	var t *testing.T // the test's
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "tick"}})
		defer srv.Close()
		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), Logger: kubegotest.Logger(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		reconciles := 0
		ctrl, err := mgr.NewController(controller.Options{
			Name: "ticker",
			Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
				reconciles++ // one worker: no two reconciles at once
				return controller.Result{RequeueAfter: 10 * time.Minute}, nil
			}),
			Sources: []controller.Source{controller.For[*corev1.ConfigMap]{}},
		})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, mgr)
		kubegotest.Settle(t, ctrl) // synced, the first reconcile done
		time.Sleep(24 * time.Hour) // returns at once
		kubegotest.Settle(t, ctrl)
		if reconciles != 1+24*6 {
			t.Errorf("%d reconciles in a day, want one every 10 minutes", reconciles)
		}
	})
}
