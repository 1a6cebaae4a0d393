package manager_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
)

// seen records the Requests a multi-cluster reconciler handled, after it
// found each object through the reader of the Request's cluster.
type seen struct {
	mu   sync.Mutex
	reqs map[string]int // "namespace/name@cluster" → reconciles
	errs []error
}

func (s *seen) count(req string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[req]
}

// reconciler reads each Request's ConfigMap from its own cluster's cache.
func (s *seen) reconciler(mgr *manager.Manager) controller.Reconciler {
	s.reqs = map[string]int{}
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		cl, err := mgr.Cluster(req.Cluster)
		if err != nil {
			return controller.Result{}, controller.TerminalError(err)
		}
		cms, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		cm, err := cms.Get(ctx, req.Key)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", req, err))
			return controller.Result{}, nil
		}
		if cm.Data["cluster"] != req.Cluster {
			s.errs = append(s.errs, fmt.Errorf("%s: read the object of cluster %q", req, cm.Data["cluster"]))
		}
		s.reqs[req.String()]++
		return controller.Result{}, nil
	})
}

func configMap(cluster, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"multicluster": "test"}},
		Data: map[string]string{"cluster": cluster}}
}

func create(ctx context.Context, t *testing.T, cfg *rest.Config, cluster, name string) {
	t.Helper()
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*corev1.ConfigMap](c).Namespace("default").Create(ctx, configMap(cluster, name), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func reconciled(s *seen, reqs ...string) func(context.Context) error {
	return func(context.Context) error {
		for _, r := range reqs {
			if s.count(r) == 0 {
				return fmt.Errorf("%s not reconciled", r)
			}
		}
		return nil
	}
}

// fakeServers starts n fake API servers, closed when the test ends.
func fakeServers(t *testing.T, n int) []*fake.Server {
	t.Helper()
	srvs := make([]*fake.Server, n)
	for i := range srvs {
		srvs[i] = fake.NewServer(fake.Options{})
		t.Cleanup(srvs[i].Close)
	}
	return srvs
}

// newHostManager returns a Manager whose host cluster is host.
func newHostManager(t *testing.T, host *fake.Server) *manager.Manager {
	t.Helper()
	mgr, err := manager.New(manager.Options{Config: host.Config(), Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// cmsController adds to mgr a controller of ConfigMaps named "cms" whose
// reconciles s records, with the rest of opts.
func cmsController(t *testing.T, mgr *manager.Manager, s *seen, opts controller.Options) *controller.Controller {
	t.Helper()
	opts.Name, opts.Reconciler = "cms", s.reconciler(mgr)
	opts.Sources = []controller.Source{controller.For[*corev1.ConfigMap]{}}
	ctl, err := mgr.NewController(opts)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

func startManager(t *testing.T, mgr *manager.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	}
}

// A multi-cluster controller reconciles the objects of the host cluster
// and of every cluster added (before and after Start), each Request
// naming its cluster and read through that cluster's reader; a removed
// cluster is gone for lookups, its readers and its controller sources.
func TestManagerReconcilesEveryCluster(t *testing.T) {
	ctx := t.Context()
	srvs := fakeServers(t, 3)
	host, east, west := srvs[0], srvs[1], srvs[2]
	mgr := newHostManager(t, host)
	var s seen
	ctl := cmsController(t, mgr, &s, controller.Options{MultiCluster: true})
	if _, err := mgr.AddCluster("east", east.Config()); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.AddCluster("east", west.Config()); !errors.Is(err, fleet.ErrDuplicate) {
		t.Fatalf("AddCluster of a name held = %v, want ErrDuplicate", err)
	}
	if _, err := mgr.AddCluster("", west.Config()); !errors.Is(err, fleet.ErrInvalid) {
		t.Fatalf("AddCluster of the empty name = %v, want ErrInvalid", err)
	}
	stop := startManager(t, mgr)
	defer stop()

	create(ctx, t, host.Config(), "", "a")
	create(ctx, t, east.Config(), "east", "a")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/a", "default/a@east"))

	// A cluster added while the Manager runs is watched at once.
	if _, err := mgr.AddCluster("west", west.Config()); err != nil {
		t.Fatal(err)
	}
	create(ctx, t, west.Config(), "west", "b")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/b@west"))
	if got := mgr.ClusterNames(); !slices.Equal(got, []string{"east", "west"}) {
		t.Fatalf("ClusterNames = %v", got)
	}
	if got := slices.Collect(func(yield func(string) bool) {
		for name := range ctl.Clusters() {
			if !yield(name) {
				return
			}
		}
	}); !slices.Equal(got, []string{"east", "west"}) {
		t.Fatalf("controller's clusters = %v", got)
	}

	// Removed: the lookups fail with typed errors, the old cluster's
	// readers with ErrRemoved, and its objects are no longer reconciled.
	eastCl, _ := mgr.Cluster("east")
	if err := mgr.RemoveCluster("east"); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.Cluster("east"); !errors.Is(err, fleet.ErrUnknown) {
		t.Fatalf("Cluster of a removed name = %v, want ErrUnknown", err)
	}
	if err := mgr.RemoveCluster("east"); !errors.Is(err, fleet.ErrUnknown) {
		t.Fatalf("second RemoveCluster = %v, want ErrUnknown", err)
	}
	if _, err := informer.NewReader[*corev1.ConfigMap](eastCl, informer.ReaderOptions{}); !errors.Is(err, informer.ErrStopped) {
		t.Fatalf("Reader of a removed cluster = %v, want ErrStopped", err)
	}
	create(ctx, t, east.Config(), "east", "late")
	create(ctx, t, west.Config(), "west", "late")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/late@west"))
	if n := s.count("default/late@east"); n != 0 {
		t.Fatalf("an object of a removed cluster was reconciled %d times", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) > 0 {
		t.Fatalf("reconciler errors: %v", s.errs)
	}
}

// A cluster that cannot be reached stalls nothing: the workers start on
// the host's sync alone and keep serving the clusters that answer.
func TestUnreachableClusterStallsNoOther(t *testing.T) {
	ctx := t.Context()
	srvs := fakeServers(t, 2)
	host, east := srvs[0], srvs[1]
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := &rest.Config{Host: "https://" + l.Addr().String()}
	l.Close() // nothing listens there any more
	mgr := newHostManager(t, host)
	var s seen
	cmsController(t, mgr, &s, controller.Options{MultiCluster: true, CacheSyncTimeout: time.Second})
	for name, cfg := range map[string]*rest.Config{"dead": dead, "east": east.Config()} {
		if _, err := mgr.AddCluster(name, cfg); err != nil {
			t.Fatal(err)
		}
	}
	stop := startManager(t, mgr)
	defer stop()
	create(ctx, t, host.Config(), "", "a")
	create(ctx, t, east.Config(), "east", "a")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/a", "default/a@east"))
	if err := mgr.RemoveCluster("dead"); err != nil {
		t.Fatal(err)
	}
}

// With SkipHostCluster only the added clusters are watched: the host is a
// hub holding their configuration.
func TestSkipHostClusterWatchesOnlyTheOthers(t *testing.T) {
	ctx := t.Context()
	srvs := fakeServers(t, 2)
	host, east := srvs[0], srvs[1]
	mgr := newHostManager(t, host)
	var s seen
	cmsController(t, mgr, &s, controller.Options{MultiCluster: true, SkipHostCluster: true})
	stop := startManager(t, mgr)
	defer stop()
	create(ctx, t, host.Config(), "", "a")
	if _, err := mgr.AddCluster("east", east.Config()); err != nil {
		t.Fatal(err)
	}
	create(ctx, t, east.Config(), "east", "b")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/b@east"))
	if n := s.count("default/a"); n != 0 {
		t.Fatalf("an object of the host was reconciled %d times", n)
	}
}

// Without MultiCluster a controller stays on the host: a cluster added
// engages nothing, and its Requests never name a cluster.
func TestSingleClusterControllerIgnoresOtherClusters(t *testing.T) {
	ctx := t.Context()
	srvs := fakeServers(t, 2)
	host, east := srvs[0], srvs[1]
	mgr := newHostManager(t, host)
	var s seen
	ctl := cmsController(t, mgr, &s, controller.Options{})
	if _, err := mgr.AddCluster("east", east.Config()); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Engage("east", informer.NewFactory(nil, informer.FactoryOptions{}), nil); !errors.Is(err, controller.ErrInvalidOptions) {
		t.Fatalf("Engage of a single-cluster controller = %v, want ErrInvalidOptions", err)
	}
	stop := startManager(t, mgr)
	defer stop()
	create(ctx, t, east.Config(), "east", "b")
	create(ctx, t, host.Config(), "", "a")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/a"))
	if n := s.count("default/b@east"); n != 0 {
		t.Fatalf("an object of another cluster was reconciled %d times", n)
	}
}

// A provider adds its clusters to a running Manager; ReplaceCluster puts
// another server under the same name, whose objects are then reconciled
// while the old cluster's cache is gone; a stopped Manager takes no
// cluster.
func TestProviderAndReplaceCluster(t *testing.T) {
	ctx := t.Context()
	srvs := fakeServers(t, 4)
	host, east, other, west := srvs[0], srvs[1], srvs[2], srvs[3]
	mgr := newHostManager(t, host)
	var s seen
	cmsController(t, mgr, &s, controller.Options{MultiCluster: true, SkipHostCluster: true})
	if err := mgr.AddProvider(fleet.Kubeconfig{File: kubeconfig.FromRESTConfig(east.Config(), "east", "")}); err != nil {
		t.Fatal(err)
	}
	if err := mgr.AddProvider(nil); !errors.Is(err, manager.ErrInvalidOptions) {
		t.Fatalf("AddProvider(nil) = %v, want ErrInvalidOptions", err)
	}
	stop := startManager(t, mgr)
	create(ctx, t, east.Config(), "east", "a")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/a@east"))

	old, err := mgr.Cluster("east")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.ReplaceCluster("east", other.Config()); err != nil {
		t.Fatal(err)
	}
	create(ctx, t, other.Config(), "east", "b")
	kubegotest.Eventually(ctx, t, reconciled(&s, "default/b@east"))
	if _, err := informer.NewReader[*corev1.ConfigMap](old, informer.ReaderOptions{}); !errors.Is(err, informer.ErrStopped) {
		t.Fatalf("Reader of the replaced cluster = %v, want ErrStopped", err)
	}
	// A server of its own: other's objects say they are east's, which the
	// reconciler would report as a read from the wrong cluster.
	if _, err := mgr.ReplaceCluster("west", west.Config()); err != nil {
		t.Fatalf("ReplaceCluster of a name not held = %v, want it added", err)
	}

	stop()
	if _, err := mgr.AddCluster("late", other.Config()); !errors.Is(err, manager.ErrStopped) {
		t.Fatalf("AddCluster after the Manager stopped = %v, want ErrStopped", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) > 0 {
		t.Fatalf("reconciler errors: %v", s.errs)
	}
}
