package sharding_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/sharding"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// Short Leases, so that a replica that stops renewing leaves the ring
// within seconds.
const (
	leaseDuration = 6 * time.Second
	renewDeadline = 4 * time.Second
	retryPeriod   = time.Second
)

// span is one reconcile: which replica ran it, when.
type span struct {
	key        string
	replica    string
	start, end time.Time
}

// recorder keeps every reconcile of every replica.
type recorder struct {
	mu    sync.Mutex
	spans []span
	last  map[string]span // the latest reconcile of each key
}

func newRecorder() *recorder { return &recorder{last: map[string]span{}} }

func (r *recorder) add(s span) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans = append(r.spans, s)
	if prev, ok := r.last[s.key]; !ok || s.end.After(prev.end) {
		r.last[s.key] = s
	}
}

func (r *recorder) lastOf(key string) (span, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.last[key]
	return s, ok
}

// overlaps returns the pairs of reconciles of one key by two replicas at
// overlapping times.
func (r *recorder) overlaps() []string {
	r.mu.Lock()
	byKey := map[string][]span{}
	for _, s := range r.spans {
		byKey[s.key] = append(byKey[s.key], s)
	}
	n := len(r.spans)
	r.mu.Unlock()
	var out []string
	for key, ss := range byKey {
		slices.SortFunc(ss, func(a, b span) int { return a.start.Compare(b.start) })
		for i := range ss {
			for j := i + 1; j < len(ss) && ss[j].start.Before(ss[i].end); j++ {
				if ss[j].replica != ss[i].replica {
					out = append(out, fmt.Sprintf("%s: %s [%v, %v] and %s [%v, %v]", key,
						ss[i].replica, ss[i].start.Format(time.StampMicro), ss[i].end.Format(time.StampMicro),
						ss[j].replica, ss[j].start.Format(time.StampMicro), ss[j].end.Format(time.StampMicro)))
				}
			}
		}
	}
	_ = n
	return out
}

// replicasOf returns, for each key, the replicas (id#incarnation) that
// reconciled it, in the order of their first reconcile.
func (r *recorder) replicasOf() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]string{}
	for _, s := range r.spans {
		if !slices.Contains(out[s.key], s.replica) {
			out[s.key] = append(out[s.key], s.replica)
		}
	}
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans)
}

// cutStore is a LeaseStore that can be cut off, as a replica that died or
// lost the network: every call fails, so it neither renews nor releases.
type cutStore struct {
	inner leaderelection.LeaseStore
	cut   atomic.Bool
}

var errCut = errors.New("cut off")

func (s *cutStore) Get(ctx context.Context, l types.NamespacedName) (*coordinationv1.Lease, error) {
	if s.cut.Load() {
		return nil, errCut
	}
	return s.inner.Get(ctx, l)
}

func (s *cutStore) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if s.cut.Load() {
		return nil, errCut
	}
	return s.inner.Create(ctx, l)
}

func (s *cutStore) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if s.cut.Load() {
		return nil, errCut
	}
	return s.inner.Update(ctx, l)
}

// cluster is one test's namespace, its objects and replicas.
type cluster struct {
	t        *testing.T
	cfg      *rest.Config
	c        *client.Client
	meta     *metadata.Client
	ns       string
	ring     string
	total    int // objects of the ring, once known
	rec      *recorder
	log      *slog.Logger
	work     time.Duration    // each reconcile's pretend work
	leases   [3]time.Duration // LeaseDuration, RenewDeadline, RetryPeriod
	noRecord bool             // do not record reconciles (memory measurements)
	keep     bool             // members keep their Leases when stopped (MemberOptions.KeepLeaseOnStop)
	retain   time.Duration    // SharderOptions.LeaseRetention
	replicas map[string]*replica
	started  map[string]int // incarnations per identity
}

type replica struct {
	id           string
	tag          string // id#incarnation: what the recorder records
	member       *sharding.Member
	sharder      *sharding.Sharder
	memberLeases *cutStore
	sharderLease *cutStore
	stopMember   context.CancelFunc
	stopSharder  context.CancelFunc
	memberDone   chan error
	sharderDone  chan error
	cache        atomic.Pointer[informer.Informer[*corev1.ConfigMap]]
}

func (r *replica) cached() int {
	if inf := r.cache.Load(); inf != nil {
		return inf.Lister().Len()
	}
	return 0
}

func newCluster(t *testing.T, cfg *rest.Config) *cluster {
	t.Helper()
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "shard-" + hex.EncodeToString(b)
	if _, err := client.Typed[*corev1.Namespace](c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](c).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	level := slog.LevelWarn
	if os.Getenv("KUBEGO_SHARDING_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return &cluster{
		t: t, cfg: cfg, c: c, meta: metadata.New(rc, metadata.Options{}), ns: ns, ring: "cms",
		rec: newRecorder(), log: kubegotest.Logger(t, &slog.HandlerOptions{Level: level}),
		work: 2 * time.Millisecond, replicas: map[string]*replica{}, started: map[string]int{},
		leases: [3]time.Duration{leaseDuration, renewDeadline, retryPeriod},
	}
}

// createConfigMaps creates n ConfigMaps with 16 writers.
func (cl *cluster) createConfigMaps(ctx context.Context, n int) { cl.createLabelled(ctx, n, nil) }

// createLabelled creates n ConfigMaps with 16 writers, each with the
// labels labels returns for its name (nil: none).
func (cl *cluster) createLabelled(ctx context.Context, n int, labels func(name string) map[string]string) {
	cl.t.Helper()
	cms := client.Typed[*corev1.ConfigMap](cl.c).Namespace(cl.ns)
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		errMu sync.Mutex
		first error
	)
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				name := "cm-" + strconv.Itoa(i)
				var l map[string]string
				if labels != nil {
					l = labels(name)
				}
				_, err := cms.Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
					Data:       map[string]string{"i": strconv.Itoa(i), "payload": "0123456789abcdef0123456789abcdef"},
				}, metav1.CreateOptions{})
				if err != nil {
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		cl.t.Fatal(first)
	}
}

// start runs replica id: a member with a guarded controller that records
// its reconciles, and a sharder candidate.
func (cl *cluster) start(id string) *replica { return cl.startReplica(id, true, true) }

// startReplica runs replica id: its member, its sharder candidate, or both.
func (cl *cluster) startReplica(id string, withMember, withSharder bool) *replica {
	cl.t.Helper()
	cl.started[id]++
	r := &replica{
		id:           id,
		tag:          id + "#" + strconv.Itoa(cl.started[id]),
		memberLeases: &cutStore{inner: leaderelection.NewStore(cl.c)},
		sharderLease: &cutStore{inner: leaderelection.NewStore(cl.c)},
		memberDone:   make(chan error, 1),
		sharderDone:  make(chan error, 1),
	}
	log := cl.log.With("replica", id)
	m, err := sharding.NewMember(cl.c, sharding.MemberOptions{
		Ring: cl.ring, Identity: id, Namespace: cl.ns,
		LeaseDuration: cl.leases[0], RenewDeadline: cl.leases[1], RetryPeriod: cl.leases[2],
		KeepLeaseOnStop: cl.keep, Leases: r.memberLeases, Logger: log,
	})
	if err != nil {
		cl.t.Fatal(err)
	}
	s, err := sharding.NewSharder(cl.c, sharding.SharderOptions{
		Ring: cl.ring, Namespace: cl.ns, Identity: id,
		Resources:     []sharding.Resource{{Resource: configMaps, Kind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: cl.ns}},
		LeaseDuration: cl.leases[0], RenewDeadline: cl.leases[1], RetryPeriod: cl.leases[2],
		LeaseRetention: cl.retain, Leases: r.sharderLease, Logger: log,
	})
	if err != nil {
		cl.t.Fatal(err)
	}
	r.member, r.sharder = m, s
	mctx, mcancel := context.WithCancel(context.Background())
	sctx, scancel := context.WithCancel(context.Background())
	r.stopMember, r.stopSharder = mcancel, scancel
	if withMember {
		go func() {
			r.memberDone <- m.Run(mctx, func(ctx, abort context.Context) error { return cl.runReplica(ctx, abort, r, log) })
		}()
	} else {
		r.memberDone <- nil
	}
	if withSharder {
		go func() { r.sharderDone <- s.Run(sctx) }()
	} else {
		r.sharderDone <- nil
	}
	cl.replicas[id] = r
	cl.t.Cleanup(func() { cl.stop(r) })
	return r
}

// runReplica is what a sharded controller's process runs while it is a
// member: a factory whose ConfigMap informer selects the member's objects,
// and a controller with a guarded reconciler.
func (cl *cluster) runReplica(ctx, abort context.Context, r *replica, log *slog.Logger) error {
	f := informer.NewFactory(cl.c, informer.FactoryOptions{Logger: log, OneInformerPerType: true})
	if err := f.Declare(informer.Declare[*corev1.ConfigMap](r.member.Informer(informer.SharedOptions{Namespace: cl.ns}))); err != nil {
		return err
	}
	reader, err := informer.NewReader[*corev1.ConfigMap](f, informer.ReaderOptions{})
	if err != nil {
		return err
	}
	inner := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		start := time.Now()
		if cl.work > 0 {
			time.Sleep(cl.work)
		}
		if !cl.noRecord {
			cl.rec.add(span{key: req.Name, replica: r.tag, start: start, end: time.Now()})
		}
		return controller.Result{}, nil
	})
	guarded, err := r.member.Guard(inner, sharding.GuardOptions{Resource: configMaps, Get: sharding.ReaderGet(reader)})
	if err != nil {
		return err
	}
	ctrl, err := controller.New(f, controller.Options{
		Name:                    "cms-" + r.id,
		Reconciler:              guarded,
		Sources:                 []controller.Source{controller.For[*corev1.ConfigMap]{}},
		MaxConcurrentReconciles: 4,
		Logger:                  log,
	})
	if err != nil {
		return err
	}
	inf, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{})
	if err != nil {
		return err
	}
	r.cache.Store(inf)
	f.Start(ctx)
	err = ctrl.StartAbortable(ctx, abort)
	_ = f.Wait()
	r.cache.Store(nil)
	return err
}

// stop stops replica r gracefully (its Leases released) unless it was cut
// off first; it waits for both to return.
func (cl *cluster) stop(r *replica) {
	r.stopMember()
	r.stopSharder()
	for _, ch := range []chan error{r.memberDone, r.sharderDone} {
		select {
		case err := <-ch:
			ch <- err
		case <-time.After(30 * time.Second):
			cl.t.Errorf("replica %s did not stop", r.id)
		}
	}
	if cl.replicas[r.id] == r {
		delete(cl.replicas, r.id)
	}
}

// kill cuts replica r off (its Leases neither renewed nor released), then
// stops it.
func (cl *cluster) kill(r *replica) {
	r.memberLeases.cut.Store(true)
	r.sharderLease.cut.Store(true)
	cl.stop(r)
}

// leader returns the replica whose sharder leads, or nil.
func (cl *cluster) leader() *replica {
	for _, r := range cl.replicas {
		if r.sharder.IsLeader() {
			return r
		}
	}
	return nil
}

// owners lists the objects and returns each one's shard label, failing
// the poll while any is unassigned or draining.
func (cl *cluster) owners(ctx context.Context) (map[string]string, error) {
	l, err := cl.meta.Resource(configMaps).Namespace(cl.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(l.Items))
	for _, o := range l.Items {
		if _, ok := o.Labels[sharding.DrainLabel(cl.ring)]; ok {
			return nil, fmt.Errorf("%s is draining", o.Name)
		}
		owner := o.Labels[sharding.ShardLabel(cl.ring)]
		if owner == "" {
			return nil, fmt.Errorf("%s is unassigned", o.Name)
		}
		out[o.Name] = owner
	}
	return out, nil
}

// settled waits until every object belongs to a running replica, every
// replica caches exactly its objects, and each object's latest reconcile
// was by its owner, and (for objects whose owner is not the one in before)
// after since. It returns the owners.
func (cl *cluster) settled(ctx context.Context, before map[string]string, since time.Time) map[string]string {
	cl.t.Helper()
	var owners map[string]string
	err := kubegotest.Poll(ctx, func(ctx context.Context) error {
		// Listing every object is work for the API server: do it only
		// once the replicas' caches hold them all.
		if cl.total > 0 {
			sum := 0
			for _, r := range cl.replicas {
				sum += r.cached()
			}
			if sum != cl.total {
				return fmt.Errorf("the replicas cache %d objects of %d", sum, cl.total)
			}
		}
		o, err := cl.owners(ctx)
		if err != nil {
			return err
		}
		per := map[string]int{}
		for key, owner := range o {
			r := cl.replicas[owner]
			if r == nil {
				return fmt.Errorf("%s belongs to %s, which is not running", key, owner)
			}
			per[owner]++
			s, ok := cl.rec.lastOf(key)
			if !ok || s.replica != r.tag || (before[key] != owner && s.end.Before(since)) {
				return fmt.Errorf("%s (owner %s) last reconciled by %q at %v", key, owner, s.replica, s.end)
			}
		}
		for id, r := range cl.replicas {
			if got := r.cached(); got != per[id] {
				return fmt.Errorf("%s caches %d objects, owns %d", id, got, per[id])
			}
		}
		owners = o
		cl.total = len(o)
		return nil
	})
	if err != nil {
		cl.t.Fatal(err)
	}
	return owners
}

// shares logs and checks that each replica owns about 1/N of total.
func (cl *cluster) shares(owners map[string]string, tolerance float64) {
	cl.t.Helper()
	per := map[string]int{}
	for _, o := range owners {
		per[o]++
	}
	fair := float64(len(owners)) / float64(len(cl.replicas))
	for id, r := range cl.replicas {
		cl.t.Logf("  %s owns %d, caches %d (fair share %.0f)", id, per[id], r.cached(), fair)
		if d := float64(per[id]) - fair; d > tolerance*fair || -d > tolerance*fair {
			cl.t.Errorf("%s owns %d objects, more than %.0f%% off its fair share %.0f", id, per[id], 100*tolerance, fair)
		}
	}
}

func moved(before, after map[string]string) int {
	n := 0
	for k, o := range before {
		if after[k] != o {
			n++
		}
	}
	return n
}

// noOverlaps fails t if any object was reconciled by two replicas at
// overlapping times.
func (c *cluster) noOverlaps(t *testing.T) {
	t.Helper()
	if o := c.rec.overlaps(); len(o) > 0 {
		t.Fatalf("%d reconciles overlapped on another replica, e.g. %s", len(o), o[0])
	}
}
