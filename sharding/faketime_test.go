package sharding_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/sharding"
)

// A ring of two replicas with production durations (15 s leases, the
// sharder's 15 s settle period), in fake time through the in-process
// fake: the objects are split between the members; when one member
// stops keeping its Lease held (as a replica that dies), its objects move
// to the other once the Lease has expired, and not before.
func TestRingMovesADeadMembersObjectsOnceItsLeaseExpires(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		const n = 40
		objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ring"}}}
		for i := range n {
			objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: fmt.Sprintf("cm-%02d", i)}})
		}
		srv := fake.NewServer(fake.Options{}, objs...)
		defer srv.Close()
		c, err := client.NewForConfig(srv.InProcessConfig(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		log := kubegotest.Logger(t, nil)
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		sharder, err := sharding.NewSharder(c, sharding.SharderOptions{
			Ring: "cms", Identity: "sharder", Namespace: "ring", Logger: log,
			Resources: []sharding.Resource{{Resource: gvr, Kind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "app", Key: sharding.ObjectKey}},
		})
		if err != nil {
			t.Fatal(err)
		}
		member := func(id string) *sharding.Member {
			m, err := sharding.NewMember(c, sharding.MemberOptions{Ring: "cms", Identity: id, Namespace: "ring", KeepLeaseOnStop: true, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		a, b := member("a"), member("b")
		idle := func(ctx, _ context.Context) error { <-ctx.Done(); return nil }
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		errs := make(chan error, 3)
		go func() { errs <- sharder.Run(ctx) }()
		go func() { errs <- a.Run(ctx, idle) }()
		bCtx, stopB := context.WithCancel(ctx)
		bDone := make(chan error, 1)
		go func() { bDone <- b.Run(bCtx, idle) }()

		cms := client.Typed[*corev1.ConfigMap](c).Namespace("app")
		owners := func() map[string]int {
			t.Helper()
			list, err := cms.List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			for _, cm := range list.Items {
				count[cm.Labels[sharding.ShardLabel("cms")]]++
			}
			return count
		}

		time.Sleep(time.Minute)
		synctest.Wait()
		split := owners()
		if split["a"] == 0 || split["b"] == 0 || split["a"]+split["b"] != n {
			t.Fatalf("after a minute: owners %v, want the %d objects split between a and b", split, n)
		}

		// b stops and keeps its Lease held, as a replica that died.
		stopB()
		if err := <-bDone; err != nil {
			t.Fatalf("member b: %v", err)
		}
		stopped := time.Now()
		// Before the Lease expires, b keeps its objects.
		time.Sleep(leaderelection.DefaultLeaseDuration - leaderelection.DefaultRetryPeriod)
		synctest.Wait()
		if got := owners(); got["b"] != split["b"] {
			t.Fatalf("%s after b stopped, within its lease: owners %v, want b's %d objects still b's", time.Since(stopped), got, split["b"])
		}
		// Once it has expired, they move to a.
		time.Sleep(3 * leaderelection.DefaultRetryPeriod)
		synctest.Wait()
		if got := owners(); got["a"] != n {
			t.Fatalf("%s after b stopped, its lease expired: owners %v, want all %d objects a's", time.Since(stopped), got, n)
		}

		cancel()
		for range 2 {
			if err := <-errs; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	})
	t.Logf("real time taken: %s", time.Since(realStart))
}
