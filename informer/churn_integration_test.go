package informer_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/testenv"
)

// version is what the comparisons look at: identity and resourceVersion.
type version struct {
	uid types.UID
	rv  string
}

// rvNum reads a resourceVersion as a number. resourceVersions are opaque to
// clients, but on one etcd-backed server they are etcd revisions, which is
// what lets the test check that none goes backwards.
func rvNum(t testing.TB, rv string) uint64 {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Errorf("resourceVersion %q is not a number: %v", rv, err)
	}
	return n
}

// object names one object: a name can be reused by a new object (new UID).
type object struct {
	name string
	uid  types.UID
}

// writeLog is the writer's record of every completed write, ordered by a
// sequence number taken when the write returned.
type writeLog struct {
	seq      atomic.Int64
	mu       sync.Mutex
	created  map[string]int64    // name → seq of its last create
	deletedA map[string]int64    // name → seq of its last delete
	deleted  map[object]struct{} // every object deleted
	writes   int
}

func (w *writeLog) create(name string) {
	s := w.seq.Add(1)
	w.mu.Lock()
	w.created[name], w.writes = s, w.writes+1
	w.mu.Unlock()
}

func (w *writeLog) update() {
	w.seq.Add(1)
	w.mu.Lock()
	w.writes++
	w.mu.Unlock()
}

func (w *writeLog) delete(name string, uid types.UID) {
	s := w.seq.Add(1)
	w.mu.Lock()
	w.deletedA[name], w.writes = s, w.writes+1
	w.deleted[object{name, uid}] = struct{}{}
	w.mu.Unlock()
}

// changedSince reports whether name was created or deleted by a write that
// completed after sequence number s.
func (w *writeLog) changedSince(name string, s int64) (created, deleted bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.created[name] > s, w.deletedA[name] > s
}

// handlerCopy is a cache built only from handler notifications.
type handlerCopy struct {
	t        testing.TB
	mu       sync.Mutex
	objs     map[string]version
	lastRV   map[string]uint64   // highest resourceVersion notified per name
	deletes  map[object]struct{} // every object whose delete was notified
	backward []string
	unknown  int // deletes with finalStateUnknown
}

func (h *handlerCopy) seen(o *corev1.ConfigMap, what string) {
	rv := rvNum(h.t, o.ResourceVersion)
	if last, ok := h.lastRV[o.Name]; ok && rv < last {
		h.backward = append(h.backward, fmt.Sprintf("%s %s: rv %d after %d", what, o.Name, rv, last))
	}
	if rv > h.lastRV[o.Name] {
		h.lastRV[o.Name] = rv
	}
}

func (h *handlerCopy) handler() informer.Handler[*corev1.ConfigMap] {
	return informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(o *corev1.ConfigMap, _ bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.seen(o, "add")
			h.objs[o.Name] = version{o.UID, o.ResourceVersion}
		},
		UpdateFunc: func(old, o *corev1.ConfigMap) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if old.UID == o.UID && rvNum(h.t, o.ResourceVersion) < rvNum(h.t, old.ResourceVersion) {
				h.backward = append(h.backward, fmt.Sprintf("update %s: %s -> %s", o.Name, old.ResourceVersion, o.ResourceVersion))
			}
			h.seen(o, "update")
			h.objs[o.Name] = version{o.UID, o.ResourceVersion}
		},
		DeleteFunc: func(o *corev1.ConfigMap, unknown bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if unknown {
				h.unknown++ // carries the last version seen, not the deletion's
			} else {
				h.seen(o, "delete")
			}
			delete(h.objs, o.Name)
			h.deletes[object{o.Name, o.UID}] = struct{}{}
		},
	}
}

func (h *handlerCopy) snapshot() map[string]version {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.objs)
}

func listVersions(t *testing.T, ctx context.Context, cms *client.Resource[*corev1.ConfigMap]) (map[string]version, string) {
	t.Helper()
	l, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]version, len(l.Items))
	for _, o := range l.Items {
		out[o.Name] = version{o.UID, o.ResourceVersion}
	}
	return out, l.ResourceVersion
}

func storeVersions(inf *informer.Informer[*corev1.ConfigMap]) map[string]version {
	out := map[string]version{}
	for _, o := range inf.Lister().List(nil) {
		out[o.Name] = version{o.UID, o.ResourceVersion}
	}
	return out
}

// createConcurrently creates n ConfigMaps cm-0 … cm-(n-1) with 16 workers.
func createConcurrently(t *testing.T, ctx context.Context, cms *client.Resource[*corev1.ConfigMap], n int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	next := atomic.Int64{}
	for range 16 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || failed.Load() != nil {
					return
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"v": "0"}}
				if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		t.Fatalf("creating ConfigMaps: %v", *e)
	}
}

// An informer over 2,000 ConfigMaps follows a writer that creates, updates
// and deletes for 20 seconds: during the churn it never holds a state the
// server did not have and catches up with every fresh LIST within seconds;
// afterwards its store and a copy built only from handler notifications
// equal a fresh LIST, every deleted object got a delete, and no
// resourceVersion went backwards.
func TestIntegrationChurn2000(t *testing.T) {
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	t0 := time.Now()
	const initial = 2000
	createConcurrently(t, ctx, cms, initial)
	t.Logf("created %d ConfigMaps in %v", initial, time.Since(t0))

	f := informer.NewFactory(c, informer.FactoryOptions{})
	inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: ns}))
	hc := &handlerCopy{t: t, objs: map[string]version{}, lastRV: map[string]uint64{}, deletes: map[object]struct{}{}}
	if _, err := inf.AddEventHandler(hc.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runCtx, stopInformers := context.WithCancel(ctx)
	defer stopInformers()
	f.Start(runCtx)
	t1 := time.Now()
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := inf.Lister().Len(); n != initial {
		t.Fatalf("synced %d ConfigMaps, want %d", n, initial)
	}
	t.Logf("initial sync of %d in %v", initial, time.Since(t1))

	// The writer: 4 workers, each owning the names ≡ worker (mod 4), at
	// most one write per 40 ms each (100 writes/s in all), for 20 s. A
	// write in flight when the 20 s end completes (and is recorded).
	wl := &writeLog{created: map[string]int64{}, deletedA: map[string]int64{}, deleted: map[object]struct{}{}}
	const workers, churn, period = 4, 20 * time.Second, 40 * time.Millisecond
	writeCtx, stopWriting := context.WithTimeout(ctx, churn)
	defer stopWriting()
	var writers sync.WaitGroup
	var writeErrs atomic.Int64
	var errMu sync.Mutex
	var errSample []string
	failed := func(op, name string, err error) {
		if writeErrs.Add(1) <= 5 {
			errMu.Lock()
			errSample = append(errSample, fmt.Sprintf("%s %s: %v", op, name, err))
			errMu.Unlock()
		}
	}
	for w := range workers {
		writers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			live := map[string]*corev1.ConfigMap{} // this worker's objects, as last written
			for i := w; i < initial; i += workers {
				live[fmt.Sprintf("cm-%d", i)] = nil // current version unknown until first touched
			}
			names := func() []string { return keysOf(live) }
			fresh := 0
			tick := time.NewTicker(period)
			defer tick.Stop()
			for {
				select {
				case <-writeCtx.Done():
					return
				case <-tick.C:
				}
				all := names()
				switch op := rng.IntN(10); {
				case op < 3 || len(all) == 0: // create
					name := fmt.Sprintf("new-%d-%d", w, fresh)
					fresh++
					o, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
					if err != nil {
						failed("create", name, err)
						continue
					}
					live[name] = o
					wl.create(name)
				case op < 7: // update
					name := all[rng.IntN(len(all))]
					o := live[name]
					if o == nil {
						var err error
						if o, err = cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
							failed("get", name, err)
							continue
						}
					}
					o = o.DeepCopy()
					o.Data = map[string]string{"v": fmt.Sprint(rng.Int())}
					u, err := cms.Update(ctx, o, metav1.UpdateOptions{})
					if err != nil {
						failed("update", name, err)
						live[name] = nil
						continue
					}
					live[name] = u
					wl.update()
				default: // delete
					name := all[rng.IntN(len(all))]
					o := live[name]
					if o == nil {
						var err error
						if o, err = cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
							failed("get", name, err)
							continue
						}
					}
					if err := cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &o.UID}}); err != nil {
						failed("delete", name, err)
						continue
					}
					delete(live, name)
					wl.delete(name, o.UID)
				}
			}
		})
	}

	// While the writer runs: every two seconds take a fresh LIST and wait
	// until the cache has caught up with it (it may be ahead of it).
	checks := 0
	var worstLag time.Duration
	for writeCtx.Err() == nil {
		select {
		case <-writeCtx.Done():
		case <-time.After(2 * time.Second):
		}
		if writeCtx.Err() != nil {
			break
		}
		s0 := wl.seq.Load()
		want, _ := listVersions(t, ctx, cms)
		listed := time.Now()
		for {
			missing := caughtUp(t, inf, want, wl, s0)
			if missing == "" {
				break
			}
			if time.Since(listed) > 10*time.Second {
				t.Fatalf("cache did not catch up with a LIST within 10 s: %s", missing)
			}
			time.Sleep(20 * time.Millisecond)
		}
		worstLag = max(worstLag, time.Since(listed))
		checks++
	}
	writers.Wait()
	wl.mu.Lock()
	t.Logf("writer: %d writes (%d failed and were skipped: %q), %d deletes; %d catch-up checks during churn, worst lag %v",
		wl.writes, writeErrs.Load(), errSample, len(wl.deleted), checks, worstLag)
	wl.mu.Unlock()

	// After the writer: the store, then the handler copy, equal a fresh LIST.
	stopped := time.Now()
	converge(t, inf, cms)
	want, _ := listVersions(t, ctx, cms)
	if got := storeVersions(inf); !maps.Equal(got, want) {
		t.Fatalf("store (%d) != fresh LIST (%d)", len(got), len(want))
	}
	kubegotest.Eventually(t.Context(), t, func(context.Context) error {
		if got := hc.snapshot(); !maps.Equal(got, want) {
			return fmt.Errorf("handler copy (%d objects) does not match the fresh LIST (%d objects)", len(got), len(want))
		}
		return nil
	})
	t.Logf("converged %v after the writer stopped", time.Since(stopped))

	hc.mu.Lock()
	defer hc.mu.Unlock()
	if len(hc.backward) > 0 {
		t.Errorf("resourceVersions went backwards in %d notifications, e.g. %v", len(hc.backward), hc.backward[:min(5, len(hc.backward))])
	}
	missed := 0
	for d := range wl.deleted {
		if _, ok := hc.deletes[d]; !ok {
			missed++
			if missed <= 5 {
				t.Errorf("deleted %s (uid %s) never reached OnDelete", d.name, d.uid)
			}
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d deletes never reached the handler", missed, len(wl.deleted))
	}
	if hc.unknown > 0 {
		t.Logf("%d deletes came with finalStateUnknown (the watch was relisted)", hc.unknown)
	}
	stopInformers()
	if err := f.Wait(); err != nil {
		t.Fatal(err)
	}
}

// caughtUp returns "" when the cache reflects at least the state of a LIST
// (want) taken when the writer's sequence number was s0, or a description
// of the first difference found. Differences explained by writes completed
// after s0 are allowed: the cache may be ahead of the LIST, never behind.
func caughtUp(t *testing.T, inf *informer.Informer[*corev1.ConfigMap], want map[string]version, wl *writeLog, s0 int64) string {
	have := storeVersions(inf)
	for name, w := range want {
		created, deleted := wl.changedSince(name, s0)
		h, ok := have[name]
		switch {
		case ok && h.uid == w.uid && rvNum(t, h.rv) >= rvNum(t, w.rv):
		case deleted || created:
		case !ok:
			return "missing " + name
		default:
			return fmt.Sprintf("%s at %s/%s, listed %s/%s", name, h.uid, h.rv, w.uid, w.rv)
		}
	}
	for name := range have {
		if _, ok := want[name]; ok {
			continue
		}
		if created, _ := wl.changedSince(name, s0); !created {
			return "still holds " + name + ", absent from the LIST"
		}
	}
	return ""
}

func keysOf(m map[string]*corev1.ConfigMap) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
