package manager_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
)

// startClusters starts one more control plane per name, at once, each a
// kube-apiserver of its own storing under its own prefix of the shared
// plane's etcd: separate clusters (own CA, own objects) for the price of
// an API server each.
func startClusters(t *testing.T, host *testenv.ControlPlane, names ...string) map[string]*testenv.ControlPlane {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testenv.BuildTimeout)
	defer cancel()
	out := map[string]*testenv.ControlPlane{}
	errs := make([]error, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			cp, err := testenv.Start(ctx, testenv.Options{EtcdEndpoint: host.EtcdEndpoint(),
				APIServerFlags: []string{"--etcd-prefix=/" + name}, Logger: kubegotest.Logger(t, nil)})
			errs[i] = err
			if err == nil {
				mu.Lock()
				out[name] = cp
				mu.Unlock()
				t.Cleanup(func() { _ = cp.Stop() })
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// establishedTo counts this process's established TCP connections to the
// loopback port. It skips the test where /proc does not tell.
func establishedTo(t *testing.T, port int) int {
	t.Helper()
	sockets := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			sockets[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, file := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line) // sl local rem st ... inode
			if len(f) < 10 || f[3] != "01" || !sockets[f[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(f[2], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
				n++
			}
		}
	}
	return n
}

// One multi-cluster controller over three real clusters: clusters added
// while it runs (by hand, and by a kubeconfig Secret in the host) are
// reconciled, a cluster whose API server is killed stalls none of the
// others, and a removed cluster (by hand, and by deleting its Secret)
// leaves no goroutine, connection or cache behind.
func TestManyClustersOnRealControlPlanes(t *testing.T) {
	host := testenv.Shared(t)
	planes := startClusters(t, host, "east", "west")
	ctx := t.Context()
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	name := func(n string) string { return n + "-" + suffix }
	hub, err := client.NewForConfig(host.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := name("fleet")
	if _, err := client.Typed[*corev1.Namespace](hub).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secrets := client.Typed[*corev1.Secret](hub).Namespace(ns)

	mgr, err := manager.New(manager.Options{Config: host.Config(), Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	// Every cluster's ConfigMap informer selects the test's objects.
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{LabelSelector: "multicluster=test"})); err != nil {
		t.Fatal(err)
	}
	var s seen
	if _, err := mgr.NewController(controller.Options{Name: "many-clusters", Reconciler: s.reconciler(mgr), MultiCluster: true,
		MaxConcurrentReconciles: 2,
		Sources:                 []controller.Source{controller.For[*corev1.ConfigMap]{}}}); err != nil {
		t.Fatal(err)
	}
	if err := mgr.AddProvider(fleet.Secrets{Client: mgr.Client(), Namespace: ns, Logger: kubegotest.Logger(t, nil)}); err != nil {
		t.Fatal(err)
	}
	stop := startManager(t, mgr)
	defer stop()
	create(ctx, t, host.Config(), "", name("a"))
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/"+name("a")))
	runtime.GC()
	before := runtime.NumGoroutine()

	// Two clusters added while the Manager runs: east by hand, west by its
	// kubeconfig Secret in the host.
	if _, err := mgr.AddCluster("east", planes["east"].Config()); err != nil {
		t.Fatal(err)
	}
	kc, err := kubeconfig.Marshal(kubeconfig.FromRESTConfig(planes["west"].Config(), "west", ""))
	if err != nil {
		t.Fatal(err)
	}
	added := time.Now()
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "west", Labels: map[string]string{fleet.SecretLabel: "true"}},
		Data: map[string][]byte{fleet.SecretKey: kc}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"east", "west"} {
		create(ctx, t, planes[c].Config(), c, name("a"))
	}
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/"+name("a")+"@east", "default/"+name("a")+"@west"))
	t.Logf("an object of the cluster of a new kubeconfig Secret reconciled %v after the Secret was created", time.Since(added).Round(time.Millisecond))
	westCl, err := mgr.Cluster("west")
	if err != nil {
		t.Fatal(err)
	}
	westCMs, err := informer.NewReader[*corev1.ConfigMap](westCl, informer.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// east's API server dies: the host and west are reconciled as before.
	planes["east"].APIServer().Kill()
	killed := time.Now()
	create(ctx, t, host.Config(), "", name("b"))
	create(ctx, t, planes["west"].Config(), "west", name("b"))
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/"+name("b"), "default/"+name("b")+"@west"))
	t.Logf("with east dead, the others reconciled a new object %v after the kill", time.Since(killed).Round(time.Millisecond))

	// Removed, a cluster leaves nothing behind: no goroutine, no open
	// connection to its API server, no cache.
	westPort := planes["west"].APIServer().Port()
	if n := establishedTo(t, westPort); n == 0 {
		t.Fatalf("no connection to west's API server while it is watched: the check below would prove nothing")
	}
	start := time.Now()
	if err := secrets.Delete(ctx, "west", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if _, err := mgr.Cluster("west"); !errors.Is(err, fleet.ErrUnknown) {
			return fmt.Errorf("Cluster(west) = %v after its Secret was deleted, want ErrUnknown", err)
		}
		return nil
	})
	t.Logf("west removed %v after its Secret was deleted", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := mgr.RemoveCluster("east"); err != nil {
		t.Fatal(err)
	}
	t.Logf("RemoveCluster(east), whose API server is dead, took %v", time.Since(start).Round(time.Millisecond))
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if n := establishedTo(t, westPort); n != 0 {
			return fmt.Errorf("%d connections to west's API server still open", n)
		}
		runtime.GC()
		if n := runtime.NumGoroutine(); n > before {
			return fmt.Errorf("%d goroutines, %d before the clusters were added", n, before)
		}
		return nil
	})
	if _, err := westCMs.Get(ctx, informer.Key{Namespace: "default", Name: name("a")}); !errors.Is(err, informer.ErrStopped) {
		t.Fatalf("read from a removed cluster's cache = %v, want ErrStopped", err)
	}
	if got := mgr.ClusterNames(); len(got) != 0 {
		t.Fatalf("ClusterNames after the removals = %v", got)
	}
	// The host goes on.
	create(ctx, t, host.Config(), "", name("c"))
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/"+name("c")))
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) > 0 {
		t.Fatalf("reconciler errors: %v", s.errs)
	}
}
