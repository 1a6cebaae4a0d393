package sharding_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/sharding"
	"github.com/kubego/kubego/testenv"
)

// Two replicas, each a Manager hosting its sharded controller like any
// other (Member.Gate), the first also the sharder: every ConfigMap is
// reconciled by the replica it is assigned to and by no other, and both
// Managers serve /readyz and /metrics, the sharded controller's metrics
// included.
func TestShardedControllerInAManager(t *testing.T) {
	cp := testenv.Shared(t)
	cl := newCluster(t, cp.Config())
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cl.createConfigMaps(ctx, 40)

	var mu sync.Mutex
	by := map[string]map[string]int{} // ConfigMap → replica → reconciles
	newReplica := func(id string, withSharder bool) *manager.Manager {
		t.Helper()
		log := cl.log.With("replica", id)
		mgr, err := manager.New(manager.Options{Config: cp.Config(), HealthAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		m, err := sharding.NewMember(mgr.Client(), sharding.MemberOptions{
			Ring: cl.ring, Identity: id, Namespace: cl.ns,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod, Logger: log,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](m.Informer(informer.SharedOptions{Namespace: cl.ns}))); err != nil {
			t.Fatal(err)
		}
		cms, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inner := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			if by[req.Name] == nil {
				by[req.Name] = map[string]int{}
			}
			by[req.Name][id]++
			return controller.Result{}, nil
		})
		guarded, err := m.Guard(inner, sharding.GuardOptions{Resource: configMaps, Get: sharding.ReaderGet(cms)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mgr.NewController(controller.Options{
			Name: "cms", Reconciler: guarded, Sources: []controller.Source{controller.For[*corev1.ConfigMap]{}},
			Gate: m.Gate, SkipLeaderElection: true,
		}); err != nil {
			t.Fatal(err)
		}
		if withSharder {
			s, err := sharding.NewSharder(mgr.Client(), sharding.SharderOptions{
				Ring: cl.ring, Namespace: cl.ns, Identity: id,
				Resources:     []sharding.Resource{{Resource: configMaps, Kind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: cl.ns}},
				LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod, Logger: log,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := mgr.Add(manager.RunnableFunc(s.Run)); err != nil {
				t.Fatal(err)
			}
		}
		kubegotest.Start(t, mgr)
		return mgr
	}
	a := newReplica("a", true)
	b := newReplica("b", false)

	label := sharding.ShardLabel(cl.ring)
	list := client.Typed[*corev1.ConfigMap](cl.c).Namespace(cl.ns)
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		page, err := list.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		counts := map[string]int{}
		for _, cm := range page.Items {
			if !strings.HasPrefix(cm.Name, "cm-") {
				continue
			}
			owner := cm.Labels[label]
			if owner == "" || by[cm.Name][owner] == 0 {
				return fmt.Errorf("%s assigned to %q, reconciled by %v", cm.Name, owner, by[cm.Name])
			}
			counts[owner]++
		}
		if counts["a"] == 0 || counts["b"] == 0 || counts["a"]+counts["b"] != 40 {
			return fmt.Errorf("ConfigMaps per replica %v, want all 40 among both", counts)
		}
		return nil
	})

	for _, r := range []struct {
		name string
		mgr  *manager.Manager
	}{{"a", a}, {"b", b}} {
		kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
			code, _ := get(ctx, "http://"+r.mgr.HealthAddr().String()+"/readyz")
			if code != http.StatusOK {
				return fmt.Errorf("replica %s /readyz: %d", r.name, code)
			}
			return nil
		})
		code, body := get(ctx, "http://"+r.mgr.MetricsAddr().String()+"/metrics")
		if code != http.StatusOK || !strings.Contains(body, `controller="cms"`) {
			t.Errorf("replica %s /metrics: %d, sharded controller's metrics present: %v", r.name, code, strings.Contains(body, `controller="cms"`))
		}
	}
}

// get returns the status code and body of a GET of url (0 on error).
func get(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
