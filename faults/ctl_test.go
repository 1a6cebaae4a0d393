//go:build linux

package faults_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
)

// The controller-fault harness: a "marker" controller, run by a Manager,
// whose Reconciler copies each ConfigMap's data[WantKey] into its
// annotation markKey. The oracle is the API server itself: once the
// controller has converged, every object carries the mark of its latest
// data, so a skipped object shows. Each reconcile can log its start and
// end (with the controller's identity and a machine-wide monotonic
// timestamp) so that reconciles of two processes can be compared.

const (
	markKey = "faults.kubego.dev/mark"
	wantKey = "want"
)

// ctlOptions configure a marker controller and its Manager. It travels to
// child processes as JSON.
type ctlOptions struct {
	Namespace string
	// Identity names the controller in its log and its Lease.
	Identity string
	// WantKey is the data key whose value the mark copies; "" is wantKey.
	WantKey string
	// Work is how long each reconcile that writes works before writing.
	Work time.Duration
	// Workers is MaxConcurrentReconciles; 0 is 1.
	Workers int
	// Lease turns leader election on (a Lease in Namespace) with this
	// LeaseDuration (RenewDeadline half of it, RetryPeriod an eighth); 0
	// is off.
	Lease time.Duration
	// LogPath, if set, receives the reconcile log.
	LogPath string
	// DisableSharing turns off the informer's sharing of equal values
	// (informer.Options.DisableSharing).
	DisableSharing bool
	// RestartOnLoss makes a child process whose Manager lost its Lease
	// start a new one, as a restarted Pod would; without it the child
	// ends.
	RestartOnLoss bool
}

// reconLog records reconciles, one line per event:
// "<identity> <event> <key> <monotonic ns> <outcome>". Each line is one
// write(2), so a process killed with SIGKILL loses nothing it logged.
type reconLog struct {
	mu sync.Mutex
	f  *os.File
	id string
}

func openReconLog(path, id string) (*reconLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &reconLog{f: f, id: id}, nil
}

func (l *reconLog) write(event, key, outcome string) {
	if l == nil {
		return
	}
	line := fmt.Sprintf("%s %s %s %d %s\n", l.id, event, key, monotonicNow(), outcome)
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.f.WriteString(line)
}

func (l *reconLog) close() {
	if l != nil {
		_ = l.f.Close()
	}
}

// marker is the Reconciler of the harness.
type marker struct {
	cache   *informer.Reader[*corev1.ConfigMap]
	cms     *client.Resource[*corev1.ConfigMap]
	wantKey string
	work    time.Duration
	log     *reconLog

	calls, writes, errs atomic.Int64
	lastErr             atomic.Value // error
}

func (m *marker) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	m.calls.Add(1)
	key := req.String()
	m.log.write("start", key, "-")
	outcome := "skip"
	defer func() { m.log.write("end", key, outcome) }()
	cm, err := m.cache.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	want, ok := cm.Data[m.wantKey]
	if !ok || cm.Annotations[markKey] == want {
		return controller.Result{}, nil
	}
	if m.work > 0 {
		select {
		case <-ctx.Done():
			outcome = "cancelled"
			return controller.Result{}, ctx.Err()
		case <-time.After(m.work):
		}
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, markKey, want)
	if _, err := m.cms.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		outcome = "error"
		if errors.Is(err, leaderelection.ErrTermOver) {
			outcome = "refused" // by the client: this replica's term was over
		}
		m.errs.Add(1)
		m.lastErr.Store(err)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil
		}
		return controller.Result{}, err
	}
	outcome = "wrote"
	m.writes.Add(1)
	return controller.Result{}, nil
}

// lastError is the last error a write of the marker met, or nil.
func (m *marker) lastError() error {
	err, _ := m.lastErr.Load().(error)
	return err
}

// newCtlManager builds a Manager through cfg running one controller over
// the ConfigMaps of o.Namespace with rec (nil: a marker, returned). The
// caller runs it (runManager) and closes the marker's log.
func newCtlManager(cfg *rest.Config, o ctlOptions, rec controller.Reconciler, logger *slog.Logger) (*manager.Manager, *marker, error) {
	mo := manager.Options{Config: cfg, Logger: logger, GracefulShutdownTimeout: 20 * time.Second}
	if o.Lease > 0 {
		mo.LeaderElection = &leaderelection.Config{
			Lock:     types.NamespacedName{Namespace: o.Namespace, Name: "faults-marker"},
			Identity: o.Identity, ReleaseOnCancel: true,
			LeaseDuration: o.Lease, RenewDeadline: o.Lease / 2, RetryPeriod: o.Lease / 8,
		}
	}
	mgr, err := manager.New(mo)
	if err != nil {
		return nil, nil, err
	}
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: o.Namespace, DisableSharing: o.DisableSharing})); err != nil {
		return nil, nil, err
	}
	var m *marker
	if rec == nil {
		cms, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
		if err != nil {
			return nil, nil, err
		}
		m = &marker{
			cache:   cms,
			cms:     client.Typed[*corev1.ConfigMap](mgr.Client()),
			wantKey: o.WantKey, work: o.Work,
		}
		if m.wantKey == "" {
			m.wantKey = wantKey
		}
		if o.LogPath != "" {
			if m.log, err = openReconLog(o.LogPath, o.Identity); err != nil {
				return nil, nil, err
			}
		}
		rec = m
	}
	_, err = mgr.NewController(controller.Options{
		Name: "marker", Reconciler: rec, MaxConcurrentReconciles: o.Workers,
		Sources: []controller.Source{controller.For[*corev1.ConfigMap]{}},
	})
	if err != nil {
		return nil, nil, err
	}
	return mgr, m, nil
}

// runManager starts mgr in the background; the returned function stops it
// and returns Start's error (also called at cleanup).
func runManager(t *testing.T, mgr *manager.Manager) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = fmt.Errorf("manager Start did not return within 30s of cancel")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// scale is short under the default run and long under KUBEGO_FAULTS=long.
func scale[T any](short, long T) T {
	if os.Getenv("KUBEGO_FAULTS") == "long" {
		return long
	}
	return short
}

// objName is the name of the i-th object of a scenario.
func objName(i int) string { return fmt.Sprintf("obj-%05d", i) }

// createObjects creates n ConfigMaps obj-00000… in ns with data want=want,
// 8 at a time.
func createObjects(t *testing.T, c *client.Client, ns string, n int, want string) {
	t.Helper()
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: objName(i)}, Data: map[string]string{wantKey: want}}
				if _, err := cms.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("creating objects: %v", err)
	}
	t.Logf("created %d ConfigMaps in %s", n, time.Since(start).Round(time.Millisecond))
}

// setWant patches data want=want on the n objects, 8 at a time.
func setWant(t *testing.T, c *client.Client, ns string, n int, want string) {
	t.Helper()
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	patch := []byte(fmt.Sprintf(`{"data":{%q:%q}}`, wantKey, want))
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				if _, err := cms.Patch(t.Context(), objName(i), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("updating objects: %v", err)
	}
}

// unmarked lists the objects of ns whose mark is not their data[key]
// (sorted), and how many objects there are.
func unmarked(ctx context.Context, c *client.Client, ns, key string) ([]string, int, error) {
	l, err := client.Typed[*corev1.ConfigMap](c).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, 0, err
	}
	var out []string
	n := 0
	for _, cm := range l.Items {
		want, ok := cm.Data[key]
		if !ok {
			continue
		}
		n++
		if cm.Annotations[markKey] != want {
			out = append(out, cm.Name)
		}
	}
	slices.Sort(out)
	return out, n, nil
}

// waitMarked polls (every second) until every object of ns that has
// data[key] carries its mark, and returns how long that took; it fails the
// test after within, naming what is left.
func waitMarked(t *testing.T, c *client.Client, ns, key string, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		left, n, err := unmarked(ctx, c, ns, key)
		cancel()
		if err == nil && len(left) == 0 && (want < 0 || n == want) {
			return time.Since(start)
		}
		if time.Since(start) > within {
			if len(left) > 10 {
				left = append(left[:10], fmt.Sprintf("... %d in all", len(left)))
			}
			t.Fatalf("not converged after %s: %d objects (want %d), unmarked: %v (last LIST error: %v)", within, n, want, left, err)
		}
		sleepCtx(t.Context(), time.Second)
	}
}

// reconEvent is one line of a reconcile log.
type reconEvent struct {
	ID, Event, Key, Outcome string
	T                       int64 // monotonic ns
}

// readReconLogs reads and merges reconcile logs, in file order.
func readReconLogs(t *testing.T, paths ...string) []reconEvent {
	t.Helper()
	var out []reconEvent
	for _, p := range paths {
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) != 5 {
				continue // a line cut by SIGKILL mid-write cannot happen (one write each), but be lenient
			}
			ts, err := strconv.ParseInt(fs[3], 10, 64)
			if err != nil {
				continue
			}
			out = append(out, reconEvent{ID: fs[0], Event: fs[1], Key: fs[2], T: ts, Outcome: fs[4]})
		}
		f.Close()
	}
	return out
}

// countOutcome counts the end events of id (any id if "") with outcome.
func countOutcome(evs []reconEvent, id, outcome string) int {
	n := 0
	for _, e := range evs {
		if e.Event == "end" && e.Outcome == outcome && (id == "" || e.ID == id) {
			n++
		}
	}
	return n
}

// span is one reconcile of one key by one identity, in monotonic ns.
type span struct {
	ID         string
	Start, End int64
	Open       bool // never ended: lasts until its process exited
}

// spans pairs every start with the next end of the same key and identity
// (a controller never runs one key twice at once). A start without an end
// lasts until exits[identity] (when its process ended; the maximum int64
// if unknown).
func spans(evs []reconEvent, exits map[string]int64) map[string][]span {
	type idKey struct{ id, key string }
	open := map[idKey]int64{}
	out := map[string][]span{}
	for _, e := range evs {
		k := idKey{e.ID, e.Key}
		switch e.Event {
		case "start":
			open[k] = e.T
		case "end":
			if s, ok := open[k]; ok {
				out[e.Key] = append(out[e.Key], span{ID: e.ID, Start: s, End: e.T})
				delete(open, k)
			}
		}
	}
	for k, s := range open {
		end, ok := exits[k.id]
		if !ok {
			end = 1<<63 - 1
		}
		out[k.key] = append(out[k.key], span{ID: k.id, Start: s, End: end, Open: true})
	}
	return out
}

// overlaps finds, for every key, reconciles by two identities whose times
// overlap, and describes them.
func overlaps(byKey map[string][]span) []string {
	var out []string
	for key, ss := range byKey {
		slices.SortFunc(ss, func(a, b span) int { return int(a.Start - b.Start) })
		for i, a := range ss {
			for _, b := range ss[i+1:] {
				if b.Start >= a.End {
					break
				}
				if a.ID != b.ID {
					out = append(out, fmt.Sprintf("%s: %s [%d, %d] open=%v and %s [%d, %d] open=%v overlap by %s",
						key, a.ID, a.Start, a.End, a.Open, b.ID, b.Start, b.End, b.Open, time.Duration(min(a.End, b.End)-b.Start)))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// firstEvent returns the time of the first event of id (any key), or 0.
func firstEvent(evs []reconEvent, id, event string) int64 {
	for _, e := range evs {
		if e.ID == id && e.Event == event {
			return e.T
		}
	}
	return 0
}

// lastEnd returns the time of the last reconcile end of id, or 0.
func lastEnd(evs []reconEvent, id string) int64 {
	var t int64
	for _, e := range evs {
		if e.ID == id && e.Event == "end" && e.T > t {
			t = e.T
		}
	}
	return t
}

// waitLogCount polls path until it holds n end events with outcome, and
// fails the test after within.
func waitLogCount(t *testing.T, path, outcome string, n int, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if got := countOutcome(readReconLogs(t, path), "", outcome); got < n {
			return fmt.Errorf("%s: %d reconciles %q, want %d", path, got, outcome, n)
		}
		return nil
	})
}

// quietLogger drops every record (scenarios whose failed reconciles are
// counted instead).
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testLogger logs warnings and errors to the test's output.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
