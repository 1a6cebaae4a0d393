package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/workqueue"
)

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// call is one recorded Reconcile.
type call struct {
	req Request
	at  time.Time
}

// recorder is a Reconciler that records its calls and answers with fn
// (nil: success). n counts the calls of req so far, from 1.
type recorder struct {
	mu    sync.Mutex
	calls []call
	count map[Request]int
	fn    func(ctx context.Context, req Request, n int) (Result, error)
}

func (r *recorder) Reconcile(ctx context.Context, req Request) (Result, error) {
	r.mu.Lock()
	if r.count == nil {
		r.count = map[Request]int{}
	}
	r.count[req]++
	n := r.count[req]
	r.calls = append(r.calls, call{req, time.Now()})
	r.mu.Unlock()
	if r.fn == nil {
		return Result{}, nil
	}
	return r.fn(ctx, req, n)
}

func (r *recorder) times(req Request) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	var first time.Time
	for _, c := range r.calls {
		if c.req != req {
			continue
		}
		if first.IsZero() {
			first = c.at
		}
		out = append(out, c.at.Sub(first))
	}
	return out
}

func (r *recorder) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// harness runs one Controller on a memBackend.
type harness struct {
	src    *memBackend
	ctl    *Controller
	reg    *prometheus.Registry
	cancel context.CancelFunc
	done   chan error
}

func startController(t *testing.T, src *memBackend, opts Options) *harness {
	t.Helper()
	h := &harness{src: src, reg: prometheus.NewRegistry(), done: make(chan error, 1)}
	f := informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}})
	if opts.Registerer == nil {
		opts.Registerer = h.reg
	}
	if opts.Name == "" {
		opts.Name = "test"
	}
	ctl, err := New(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.ctl = ctl
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	go func() {
		h.done <- ctl.Start(ctx)
		_ = f.Wait()
		close(h.done)
	}()
	return h
}

func (h *harness) stop(t *testing.T) {
	t.Helper()
	h.cancel()
	if err := <-h.done; err != nil {
		t.Errorf("Start: %v", err)
	}
	<-h.done
}

var reqA = Request{Key: informer.Key{Namespace: "ns", Name: "a"}}

func TestReconcilesEveryObjectOnceAfterSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(cm("a"), cm("b"), cm("c"))
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}}})
		synctest.Wait()
		if got := rec.total(); got != 3 {
			t.Fatalf("reconciles after sync = %d, want 3", got)
		}
		src.write(cm("d"))
		synctest.Wait()
		if got := rec.total(); got != 4 {
			t.Fatalf("reconciles after a create = %d, want 4", got)
		}
		src.remove(cm("d"))
		synctest.Wait()
		if got := rec.total(); got != 5 {
			t.Fatalf("reconciles after a delete = %d, want 5", got)
		}
		h.stop(t)
	})
}

func TestWorkersDoNotStartBeforeEverySourceSynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(cm("a"))
		src.gate = make(chan struct{})
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}}})
		// Less than the reflector's LIST timeout (1 min): the LIST is
		// still pending when the gate opens.
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if rec.total() != 0 || h.ctl.Started() || h.ctl.HasSynced() {
			t.Fatalf("before sync: %d reconciles, started=%v, synced=%v", rec.total(), h.ctl.Started(), h.ctl.HasSynced())
		}
		close(src.gate)
		synctest.Wait()
		if rec.total() != 1 || !h.ctl.Started() {
			t.Fatalf("after sync: %d reconciles, started=%v", rec.total(), h.ctl.Started())
		}
		h.stop(t)
	})
}

func TestStartFailsWithTheCauseWhenASourceCannotSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend()
		src.listErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("rbac says no"))
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, CacheSyncTimeout: 10 * time.Second,
			Sources: []Source{For[*corev1.ConfigMap]{}}})
		err := <-h.done
		<-h.done
		h.cancel()
		if !errors.Is(err, ErrNotSynced) || !apierrors.IsForbidden(err) {
			t.Fatalf("Start = %v; want ErrNotSynced with a Forbidden cause", err)
		}
		var se *informer.SyncError
		if !errors.As(err, &se) {
			t.Fatalf("Start = %v; want an *informer.SyncError inside", err)
		}
		if rec.total() != 0 {
			t.Fatalf("%d reconciles ran without a synced cache", rec.total())
		}
	})
}

func TestOutcomes(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name string
		fn   func(ctx context.Context, req Request, n int) (Result, error)
		// want are the times of the calls, relative to the first.
		want   []time.Duration
		metric string // a reconcile_total result that must count len(want)
	}{
		{
			name: "success is not repeated",
			fn:   func(context.Context, Request, int) (Result, error) { return Result{}, nil },
			want: []time.Duration{0},
		},
		{
			name: "terminal error is not retried",
			fn: func(context.Context, Request, int) (Result, error) {
				return Result{}, TerminalError(errBoom)
			},
			want:   []time.Duration{0},
			metric: "terminal_error",
		},
		{
			name: "error retries with exponential backoff until success",
			fn: func(_ context.Context, _ Request, n int) (Result, error) {
				if n <= 3 {
					return Result{}, errBoom
				}
				return Result{}, nil
			},
			want: []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second},
		},
		{
			name: "requeue after a delay, backoff reset",
			fn: func(_ context.Context, _ Request, n int) (Result, error) {
				if n <= 2 {
					return Result{RequeueAfter: 10 * time.Second}, nil
				}
				return Result{}, nil
			},
			want: []time.Duration{0, 10 * time.Second, 20 * time.Second},
		},
		{
			name: "requeue uses the rate limiter",
			fn: func(_ context.Context, _ Request, n int) (Result, error) {
				return Result{Requeue: n <= 2}, nil
			},
			want: []time.Duration{0, time.Second, 3 * time.Second},
		},
		{
			name: "panic is recovered and retried",
			fn: func(_ context.Context, _ Request, n int) (Result, error) {
				if n == 1 {
					panic("kaboom")
				}
				return Result{}, nil
			},
			want: []time.Duration{0, time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{fn: tt.fn}
				h := startController(t, newMemBackend(cm("a")), Options{
					Reconciler:  rec,
					Sources:     []Source{For[*corev1.ConfigMap]{}},
					RateLimiter: workqueue.NewExponential[Request](backoff.Backoff{Initial: time.Second}),
				})
				time.Sleep(time.Hour)
				synctest.Wait()
				got := rec.times(reqA)
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("calls at %v, want %v", got, tt.want)
				}
				if tt.metric != "" {
					n := value(h.ctl.metrics.results[tt.metric])
					if int(n) != len(tt.want) {
						t.Errorf("reconcile_total{result=%q} = %v, want %d", tt.metric, n, len(tt.want))
					}
				}
				h.stop(t)
			})
		})
	}
}

func TestPanicsAndErrorsAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{fn: func(_ context.Context, _ Request, n int) (Result, error) {
			switch n {
			case 1:
				panic(errors.New("kaboom"))
			case 2:
				return Result{}, errors.New("plain")
			case 3:
				return Result{}, TerminalError(nil)
			}
			return Result{}, nil
		}}
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}},
			RateLimiter: workqueue.NewExponential[Request](backoff.Backoff{Initial: time.Second})})
		time.Sleep(time.Hour)
		synctest.Wait()
		m := h.ctl.metrics
		for name, c := range map[string]prometheus.Metric{
			"panics":   m.panics,
			"errors":   m.errors,
			"terminal": m.terminal,
		} {
			want := map[string]float64{"panics": 1, "errors": 3, "terminal": 1}[name]
			if got := value(c); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
		if got := rec.times(reqA); len(got) != 3 {
			t.Errorf("calls at %v, want 3 (panic, error, terminal)", got)
		}
		h.stop(t)
	})
}

func TestPanicErrorCarriesTheValue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errInner := errors.New("inner")
		var got error
		c := &Controller{log: LoggerFrom(context.Background()), opts: Options{Reconciler: ReconcilerFunc(func(context.Context, Request) (Result, error) { panic(errInner) })}}
		_, got = c.call(context.Background(), reqA)
		var pe *PanicError
		if !errors.As(got, &pe) || pe.Request != reqA || !errors.Is(got, errInner) || len(pe.Stack) == 0 {
			t.Fatalf("call = %v; want a *PanicError for %v wrapping the panic value", got, reqA)
		}
	})
}

func TestNoRequestIsReconciledTwiceAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		inFlight := map[Request]bool{}
		overlap := 0
		rec := &recorder{fn: func(_ context.Context, req Request, _ int) (Result, error) {
			mu.Lock()
			if inFlight[req] {
				overlap++
			}
			inFlight[req] = true
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			inFlight[req] = false
			mu.Unlock()
			return Result{}, nil
		}}
		src := newMemBackend(cm("a"), cm("b"))
		h := startController(t, src, Options{Reconciler: rec, MaxConcurrentReconciles: 4, Sources: []Source{For[*corev1.ConfigMap]{}}})
		synctest.Wait()
		for i := range 200 {
			o := cm([]string{"a", "b"}[i%2])
			o.Data = map[string]string{"i": fmt.Sprint(i)}
			src.write(o)
			time.Sleep(7 * time.Millisecond)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if overlap != 0 {
			t.Fatalf("%d reconciles overlapped with another of the same request", overlap)
		}
		// The last write of each key must have been seen: a reconcile
		// started after it.
		if n := rec.total(); n < 4 {
			t.Fatalf("only %d reconciles", n)
		}
		h.stop(t)
	})
}

func TestShutdownDrainsReconcilesInFlight(t *testing.T) {
	tests := []struct {
		name        string
		drain       time.Duration
		work        time.Duration
		wantStopAt  time.Duration // since cancel
		wantCtxDone bool          // the reconcile saw its ctx cancelled
	}{
		{"finishes within the drain", 10 * time.Second, 3 * time.Second, 3 * time.Second, false},
		{"cancelled at the drain deadline", 2 * time.Second, time.Minute, 2 * time.Second, true},
		{"no drain cancels at once", -1, time.Minute, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan struct{})
				var sawCancel bool
				rec := &recorder{fn: func(ctx context.Context, _ Request, n int) (Result, error) {
					if n > 1 {
						return Result{}, nil
					}
					close(started)
					select {
					case <-time.After(tt.work):
					case <-ctx.Done():
						sawCancel = true
						return Result{}, ctx.Err()
					}
					return Result{}, nil
				}}
				h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, DrainTimeout: tt.drain, Sources: []Source{For[*corev1.ConfigMap]{}}})
				<-started
				t0 := time.Now()
				h.cancel()
				if err := <-h.done; err != nil {
					t.Fatal(err)
				}
				if got := time.Since(t0); got != tt.wantStopAt {
					t.Errorf("Start returned %v after cancel, want %v", got, tt.wantStopAt)
				}
				if sawCancel != tt.wantCtxDone {
					t.Errorf("reconcile saw ctx cancelled = %v, want %v", sawCancel, tt.wantCtxDone)
				}
				<-h.done
			})
		})
	}
}

func TestOwnsEnqueuesTheControllingOwner(t *testing.T) {
	isController := true
	rs := func(name string, refs ...metav1.OwnerReference) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: refs}}
	}
	ref := func(apiVersion, kind, name string, ctl bool) metav1.OwnerReference {
		r := metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "uid-" + types.UID(name)}
		if ctl {
			r.Controller = &isController
		}
		return r
	}
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(
			rs("web-1", ref("apps/v1", "Deployment", "web", true)),
			rs("orphan"),
			rs("not-controller", ref("apps/v1", "Deployment", "other", false)),
			rs("other-kind", ref("v1", "ConfigMap", "cfg", true)),
			rs("other-group", ref("example.com/v1", "Deployment", "x", true)),
		)
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{
			For[*appsv1.Deployment]{},
			Owns[*appsv1.ReplicaSet]{},
		}})
		synctest.Wait()
		web := Request{Key: informer.Key{Namespace: "ns", Name: "web"}}
		if got := rec.times(web); len(got) != 1 || rec.total() != 1 {
			t.Fatalf("reconciles: %v; want only %v once", rec.calls, web)
		}
		// An update that moves the controller ref enqueues old and new owner.
		src.write(rs("web-1", ref("apps/v1", "Deployment", "web2", true)))
		synctest.Wait()
		if len(rec.times(web)) != 2 || len(rec.times(Request{Key: informer.Key{Namespace: "ns", Name: "web2"}})) != 1 {
			t.Fatalf("after owner change: %v", rec.calls)
		}
		h.stop(t)
	})
}

func TestOwnsNeedsAKnownOwnerKind(t *testing.T) {
	f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
	_, err := New(f, Options{Reconciler: &recorder{}, Sources: []Source{Owns[*appsv1.ReplicaSet]{}}})
	if !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("New = %v, want ErrUnknownKind", err)
	}
	_, err = New(f, Options{Reconciler: &recorder{}, Sources: []Source{Owns[*appsv1.ReplicaSet]{OwnerKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}}}})
	if err != nil {
		t.Fatalf("New with OwnerKind = %v", err)
	}
}

func TestWatchesMapsEventsToRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(cm("settings"))
		rec := &recorder{}
		mapFn := func(_ context.Context, o *corev1.ConfigMap) []Request {
			return []Request{{Key: informer.Key{Namespace: o.Namespace, Name: "app-1"}}, {Key: informer.Key{Namespace: o.Namespace, Name: "app-2"}}}
		}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{Watches[*corev1.ConfigMap]{Map: mapFn}}})
		synctest.Wait()
		if rec.total() != 2 {
			t.Fatalf("reconciles %v, want app-1 and app-2", rec.calls)
		}
		h.stop(t)
	})
}

func TestPredicatesFilterSourceEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(cm("a"))
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{
			For[*corev1.ConfigMap]{Predicates: []Predicate{LabelsChanged}},
		}})
		synctest.Wait()
		o := cm("a")
		o.Data = map[string]string{"k": "v"}
		src.write(o) // data only: filtered
		synctest.Wait()
		if rec.total() != 1 {
			t.Fatalf("a data-only update passed LabelsChanged: %v", rec.calls)
		}
		o.Labels = map[string]string{"l": "1"}
		src.write(o)
		synctest.Wait()
		if rec.total() != 2 {
			t.Fatalf("a label change did not pass LabelsChanged: %v", rec.calls)
		}
		h.stop(t)
	})
}

func TestNewRejectsBadOptions(t *testing.T) {
	f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
	rec := &recorder{}
	reused := Channel(make(chan Request), nil)
	if _, err := New(f, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}, reused}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		factory *informer.Factory
		opts    Options
		want    error
	}{
		{"nil factory", nil, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}}}, ErrInvalidOptions},
		{"no reconciler", f, Options{Sources: []Source{For[*corev1.ConfigMap]{}}}, ErrInvalidOptions},
		{"no source", f, Options{Reconciler: rec}, ErrInvalidOptions},
		{"nil source", f, Options{Reconciler: rec, Sources: []Source{nil}}, ErrInvalidOptions},
		{"two For", f, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}, For[*corev1.Secret]{}}}, ErrInvalidOptions},
		{"negative workers", f, Options{Reconciler: rec, MaxConcurrentReconciles: -1, Sources: []Source{For[*corev1.ConfigMap]{}}}, ErrInvalidOptions},
		{"reused Channel source", f, Options{Reconciler: rec, Sources: []Source{reused}}, ErrSourceReused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.factory, tt.opts); !errors.Is(err, tt.want) {
				t.Fatalf("New = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestStartTwiceFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startController(t, newMemBackend(), Options{Reconciler: &recorder{}, Sources: []Source{For[*corev1.ConfigMap]{}}})
		synctest.Wait()
		if err := h.ctl.Start(t.Context()); !errors.Is(err, ErrAlreadyStarted) {
			t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
		}
		h.stop(t)
	})
}

// A controller stopped before it started (its context ended while the
// factory's informers were stopping, so a handler cannot register) has not
// failed: Start returns nil, as it does when stopped before sync.
func TestStartWithAnEndedContextIsNotAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := informer.NewFactory(newMemBackend(cm("a")), informer.FactoryOptions{})
		rec := &recorder{}
		ctl, err := New(f, Options{Name: "test", Reconciler: rec, Registerer: prometheus.NewRegistry(),
			Sources: []Source{For[*corev1.ConfigMap]{}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		f.Start(ctx)
		_ = f.Wait() // every informer has stopped: registering a handler fails
		if err := ctl.Start(ctx); err != nil {
			t.Fatalf("Start with an ended context = %v, want nil", err)
		}
		if rec.total() != 0 {
			t.Fatalf("%d reconciles ran in a controller that never started", rec.total())
		}
	})
}

// value reads a counter or gauge.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		return -1
	}
	switch {
	case d.Counter != nil:
		return d.Counter.GetValue()
	case d.Gauge != nil:
		return d.Gauge.GetValue()
	}
	return -1
}
