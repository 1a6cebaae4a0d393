package faults_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// counter counts the requests an informer sends, by kind, through
// rest.Config.WrapTransport.
type counter struct {
	lists, watches, streams atomic.Int64
	tooMany                 atomic.Int64 // responses with status 429
}

func (c *counter) wrap(cfg *rest.Config) *rest.Config {
	inner := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if inner != nil {
			rt = inner(rt)
		}
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configmaps") {
				q := r.URL.Query()
				switch {
				case q.Get("watch") == "true" || q.Get("watch") == "1":
					if q.Get("sendInitialEvents") == "true" {
						c.streams.Add(1)
					} else {
						c.watches.Add(1)
					}
				default:
					c.lists.Add(1)
				}
			}
			resp, err := rt.RoundTrip(r)
			if err == nil && resp.StatusCode == http.StatusTooManyRequests {
				c.tooMany.Add(1)
			}
			return resp, err
		})
	}
	return cfg
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// note is one handler notification.
type note struct {
	Kind string // add, update, delete
	UID  types.UID
	RV   string
}

// recorder is the informer handler of the oracle: it keeps the last
// notification of every key and flags resourceVersions going backwards.
type recorder struct {
	mu        sync.Mutex
	last      map[string]note
	deletes   map[string]int
	backwards []string
	total     int
}

func newRecorder() *recorder {
	return &recorder{last: map[string]note{}, deletes: map[string]int{}}
}

func (r *recorder) record(name string, n note) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if prev, ok := r.last[name]; ok && rvLess(n.RV, prev.RV) {
		r.backwards = append(r.backwards, fmt.Sprintf("%s: %s %s after %s %s", name, n.Kind, n.RV, prev.Kind, prev.RV))
	}
	r.last[name] = n
	if n.Kind == "delete" {
		r.deletes[name]++
	}
}

func rvLess(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x < y
}

func (r *recorder) handler() informer.Handler[*corev1.ConfigMap] {
	return informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(o *corev1.ConfigMap, _ bool) {
			r.record(o.Name, note{"add", o.UID, o.ResourceVersion})
		},
		UpdateFunc: func(_, o *corev1.ConfigMap) {
			r.record(o.Name, note{"update", o.UID, o.ResourceVersion})
		},
		DeleteFunc: func(o *corev1.ConfigMap, _ bool) {
			r.record(o.Name, note{"delete", o.UID, o.ResourceVersion})
		},
	}
}

// watched is an informer over the ConfigMaps of one namespace, with the
// oracle's recorder and request counter.
type watched struct {
	inf  *informer.Informer[*corev1.ConfigMap]
	rec  *recorder
	cnt  *counter
	stop func() error
	base goroutines
}

// startInformer runs an informer through cfg (typically pointed at a
// proxy) and waits for its sync (bounded by 30 s).
func startInformer(t *testing.T, cfg *rest.Config, ns string, ropts informer.ReflectorOptions) *watched {
	t.Helper()
	return startInformerWith(t, cfg, ns, informer.Options[*corev1.ConfigMap]{Reflector: ropts})
}

// startInformerWith is startInformer with the informer's options (Name is
// set here; a zero Reflector.Backoff gets the suite's short backoff).
func startInformerWith(t *testing.T, cfg *rest.Config, ns string, opts informer.Options[*corev1.ConfigMap]) *watched {
	t.Helper()
	w := &watched{rec: newRecorder(), cnt: &counter{}, base: snapshotGoroutines()}
	if opts.Reflector.Backoff.Max == 0 {
		opts.Reflector.Backoff = backoff.Backoff{Initial: 200 * time.Millisecond, Max: 2 * time.Second}
	}
	opts.Name = "faults"
	c := newClient(t, w.cnt.wrap(cfg))
	w.inf = informer.New(client.Typed[*corev1.ConfigMap](c).Namespace(ns).ListerWatcher(), opts)
	if _, err := w.inf.AddEventHandler(w.rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.inf.Run(ctx) }()
	var once sync.Once
	var runErr error
	w.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(10 * time.Second):
				runErr = fmt.Errorf("informer Run did not return within 10s of cancel")
			}
		})
		return runErr
	}
	t.Cleanup(func() { w.stop() })
	sctx, scancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer scancel()
	if err := w.inf.WaitForSync(sctx); err != nil {
		t.Fatalf("informer did not sync: %v", err)
	}
	return w
}

// result is what the oracle measured, for the log and RELIABILITY.md.
type result struct {
	Objects, Notes, Lists, Watches, Streams, TooMany int
	Converge                                         time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("objects=%d notifications=%d LISTs=%d watches=%d streams=%d converged_in=%s",
		r.Objects, r.Notes, r.Lists, r.Watches, r.Streams, r.Converge.Round(10*time.Millisecond))
}

// check is the oracle, run after faults and writes have stopped. Within
// 30 s: the store equals a fresh LIST (keys, UIDs, resourceVersions);
// every live key's last notification carries its final UID and
// resourceVersion; every key ever created that is gone got a delete as
// its last notification; no notification went backwards in
// resourceVersion. Then the informer is stopped and no goroutine of
// kubego may remain. It reports the LIST count with t.Log.
func (w *watched) check(t *testing.T, truth *client.Resource[*corev1.ConfigMap], ever map[string]bool) result {
	t.Helper()
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	var problems []string
	for {
		problems = w.compare(t, truth, ever)
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	res := result{Objects: w.inf.Lister().Len(), Lists: int(w.cnt.lists.Load()), Watches: int(w.cnt.watches.Load()),
		Streams: int(w.cnt.streams.Load()), TooMany: int(w.cnt.tooMany.Load()), Converge: time.Since(start)}
	w.rec.mu.Lock()
	res.Notes = w.rec.total
	backwards := slices.Clone(w.rec.backwards)
	w.rec.mu.Unlock()
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("... and %d more", len(problems)-10))
		}
		t.Errorf("oracle: not converged after 30s:\n  %s", strings.Join(problems, "\n  "))
	}
	if len(backwards) > 0 {
		t.Errorf("oracle: resourceVersion went backwards in %d notifications: %v", len(backwards), backwards[:min(5, len(backwards))])
	}
	if err := w.inf.CheckMutations(); err != nil {
		t.Errorf("oracle: %v", err)
	}
	if err := w.stop(); err != nil && err != context.Canceled {
		t.Errorf("oracle: informer Run: %v", err)
	}
	w.base.checkNoLeak(t, 10*time.Second)
	t.Logf("oracle: %s", res)
	return res
}

func (w *watched) compare(t *testing.T, truth *client.Resource[*corev1.ConfigMap], ever map[string]bool) []string {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	l, err := truth.List(ctx, metav1.ListOptions{})
	if err != nil {
		return []string{"fresh LIST: " + err.Error()}
	}
	var problems []string
	want := map[string]*corev1.ConfigMap{}
	for _, o := range l.Items {
		want[o.Name] = o
	}
	got := map[string]*corev1.ConfigMap{}
	for _, o := range w.inf.Lister().List(nil) {
		got[o.Name] = o
	}
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	for name, o := range want {
		g, ok := got[name]
		switch {
		case !ok:
			problems = append(problems, name+": missing from the store")
		case g.UID != o.UID || g.ResourceVersion != o.ResourceVersion:
			problems = append(problems, fmt.Sprintf("%s: store has uid=%s rv=%s, LIST uid=%s rv=%s", name, g.UID, g.ResourceVersion, o.UID, o.ResourceVersion))
		}
		n, ok := w.rec.last[name]
		if !ok || n.Kind == "delete" || n.UID != o.UID || n.RV != o.ResourceVersion {
			problems = append(problems, fmt.Sprintf("%s: last notification %+v, want uid=%s rv=%s", name, n, o.UID, o.ResourceVersion))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			problems = append(problems, name+": in the store but not in a fresh LIST (a ghost)")
		}
	}
	for name := range ever {
		if _, ok := want[name]; ok {
			continue
		}
		if n, ok := w.rec.last[name]; ok && n.Kind != "delete" {
			problems = append(problems, fmt.Sprintf("%s: deleted, but the last notification is %+v", name, n))
		}
	}
	return problems
}

// goroutines is a snapshot of the goroutines running kubego code.
type goroutines map[string]int

// kubegoFrames are the packages whose goroutines must all end with the
// informer. Transport goroutines of net/http (idle pooled connections)
// are not counted: rest shares transports between clients on purpose.
var kubegoFrames = []string{"kubego/kubego/informer.", "kubego/kubego/rest.", "kubego/kubego/client."}

func snapshotGoroutines() goroutines {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	g := goroutines{}
	for _, st := range strings.Split(string(buf), "\n\n") {
		ours := false
		for _, f := range kubegoFrames {
			if strings.Contains(st, f) {
				ours = true
			}
		}
		if !ours {
			continue
		}
		// The key is the stack without the header (goroutine id, state).
		if i := strings.IndexByte(st, '\n'); i >= 0 {
			st = st[i+1:]
		}
		g[stripArgs(st)]++
	}
	return g
}

// stripArgs drops argument values and offsets so that equal code paths
// compare equal.
func stripArgs(st string) string {
	lines := strings.Split(st, "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '('); j > 0 && !strings.HasPrefix(l, "\t") {
			lines[i] = l[:j]
		}
		if j := strings.Index(l, " +0x"); j > 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// checkNoLeak waits up to grace (a poll, kubegotest.Poll) for every
// kubego goroutine started since the snapshot to end.
func (base goroutines) checkNoLeak(t *testing.T, grace time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := kubegotest.Poll(ctx, func(context.Context) error {
		var extra []string
		for st, n := range snapshotGoroutines() {
			if n > base[st] {
				extra = append(extra, fmt.Sprintf("%d× %s", n-base[st], st))
			}
		}
		if len(extra) > 0 {
			return fmt.Errorf("%d goroutine stacks leaked:\n%s", len(extra), strings.Join(extra, "\n\n"))
		}
		return nil
	})
	var nm *kubegotest.NotMetError
	if errors.As(err, &nm) {
		t.Errorf("oracle: %v", nm.Last)
	}
}
