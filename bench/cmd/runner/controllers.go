package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// The controller benchmarks compare kubego with controller-runtime v0.25
// (bench/controllers: one binary per library, the controller side in
// bench/internal/ctlbench) on two workloads, each written as its library
// teaches:
//
//   - cr-labeler: label every one of N unlabeled Deployments
//     (examples/labeler against a For(&appsv1.Deployment{}) reconciler
//     that Gets from the cache and Patches the label);
//   - cr-foo: the sample-controller: N Foos (a CRD), each owning a
//     Deployment the controller creates, whose available replicas it
//     writes into the Foo's status through the status subresource
//     (examples/samplecontroller against For(&Foo{}).Owns(&appsv1.Deployment{})).
//
// No kube-controller-manager runs, so the runner stands in for the
// Deployment controller: it sets each Deployment's status to its replicas
// available (a status patch per Deployment, the same for both libraries).
//
// Each run, on a fresh namespace of N objects created beforehand:
//
//   - converge: the runner starts the controller process and watches the
//     objects; when all N are in their desired state (labeled; or the
//     Foo's status.availableReplicas equal to its spec.replicas) the wall
//     time stops and the process is told (SIGUSR1) to report its CPU
//     time, peak RSS, live heap (after two GCs, caches still held) and
//     requests by verb (counted by a RoundTripper wrapper on each side).
//   - restart: a new process of the same library starts over the same N
//     objects, now all in their desired state, and reports when it has
//     been idle for 2 s: time from the exec to its last reconcile (or its
//     caches' sync when none runs), CPU time, reconciles run, and the cold
//     start: exec to N reconciles finished.
//
// Runs alternate the libraries (kubego first in odd rounds); the
// objects are deleted after each run.
var crWorkloads = []string{"cr-labeler", "cr-foo"}

// crBenchmarks are the benchmarks run on the controllers' control plane:
// the cold start first, then the workloads.
func crBenchmarks() []string { return append([]string{coldStartBenchmark}, crWorkloads...) }

func (rep *report) controllers(ctx context.Context, o options, bins map[string]string, want func(string) bool) error {
	logf("controller benchmarks: starting a control plane of their own")
	cp, err := testenv.Start(ctx, testenv.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer cp.Stop()
	dir, err := os.MkdirTemp("", "kubego-crbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	kc := filepath.Join(dir, "kubeconfig")
	if err := cp.WriteKubeconfig(kc); err != nil {
		return err
	}
	reg := client.NewRegistry()
	foos.Register(reg)
	c, err := newRunnerClient(cp, reg)
	if err != nil {
		return err
	}
	if err := foos.Install(ctx, c); err != nil {
		return err
	}
	if want(coldStartBenchmark) {
		logf("%s: %d Foos, %d runs per library", coldStartBenchmark, o.coldN, o.runs)
		if err := rep.coldStart(ctx, o, c, kc, bins); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(crWorkloads, want) {
		rep.CRObjects = o.crN
	}
	for _, w := range crWorkloads {
		if !want(w) {
			continue
		}
		logf("%s: %d objects, %d runs per library", w, o.crN, o.runs)
		for r := 1; r <= o.runs; r++ {
			impls := []string{"kubego", "controller-runtime", decodedImpl}
			if r%2 == 0 {
				impls[0], impls[1] = impls[1], impls[0]
			}
			for _, impl := range impls {
				binImpl := impl
				if impl == decodedImpl {
					binImpl = "kubego"
				}
				bin := bins[controllerBinary(binImpl, w[len("cr-"):])]
				s, err := crRun(ctx, o, c, kc, bin, w, impl, r)
				if err != nil {
					return fmt.Errorf("%s %s run %d: %w", w, impl, r, err)
				}
				logf("  %s %s run %d: %s", w, impl, r, s.brief(shown[w]))
				key := impl
				if impl == "controller-runtime" {
					key = "client-go" // the report's second column
				}
				rep.add(w, key, s)
			}
		}
	}
	return nil
}

func newRunnerClient(cp *testenv.ControlPlane, reg *client.Registry) (*client.Client, error) {
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return nil, err
	}
	return client.New(rc, client.Options{Registry: reg}), nil
}

// crRun runs one converge and one restart of workload w with library impl
// on a fresh namespace, and deletes the namespace's objects after.
func crRun(ctx context.Context, o options, c *client.Client, kubeconfig, bin, w, impl string, round int) (sample, error) {
	ns := fmt.Sprintf("%s-%s-%d", w, map[string]string{"kubego": "k", "controller-runtime": "cr", decodedImpl: "kd"}[impl], round)
	workload := w[len("cr-"):]
	if err := crPopulate(ctx, c, workload, ns, o.crN); err != nil {
		return nil, fmt.Errorf("populating: %w", err)
	}
	defer func() {
		if err := crCleanup(context.WithoutCancel(ctx), c, ns); err != nil {
			logf("cleaning up %s: %v", ns, err)
		}
	}()
	profile := func(mode string) []string {
		if !o.profile || impl != "kubego" || round != 1 {
			return nil
		}
		base := filepath.Join(o.out, "profiles", w+"."+mode)
		return []string{"-cpuprofile", base + ".cpu.pprof", "-memprofile", base + ".heap.pprof"}
	}
	args := func(mode string) []string {
		return append([]string{"-workload", workload, "-mode", mode, "-namespace", ns, "-n", strconv.Itoa(o.crN)}, profile(mode)...)
	}

	// Converge: watch from outside until every object is in its desired
	// state, then ask the process for its report.
	octx, stopObserver := context.WithCancel(ctx)
	converged, err := crObserve(octx, c, workload, ns, o.crN)
	if err != nil {
		stopObserver()
		return nil, err
	}
	t0 := time.Now()
	proc, err := startChild(ctx, bin, kubeconfig, t0, args("converge"), decodedEnv(impl)...)
	if err != nil {
		stopObserver()
		return nil, err
	}
	var wall time.Duration
	select {
	case <-converged:
		wall = time.Since(t0)
	case <-proc.exited:
		stopObserver()
		return nil, fmt.Errorf("converge: the process ended early: %v: %s", proc.err, tail(proc.stderr.String(), 1500))
	case <-time.After(15 * time.Minute):
		stopObserver()
		_ = proc.cmd.Process.Kill()
		return nil, fmt.Errorf("converge: not converged after 15 minutes")
	}
	stopObserver()
	s, err := proc.report(syscall.SIGUSR1)
	if err != nil {
		return nil, fmt.Errorf("converge: %w", err)
	}
	s["converge_seconds"] = wall.Seconds()

	// Restart over the converged objects.
	proc, err = startChild(ctx, bin, kubeconfig, time.Now(), args("restart"), decodedEnv(impl)...)
	if err != nil {
		return nil, err
	}
	select {
	case <-proc.exited:
	case <-time.After(15 * time.Minute):
		_ = proc.cmd.Process.Kill()
		return nil, fmt.Errorf("restart: not idle after 15 minutes")
	}
	rs, err := proc.report(nil)
	if err != nil {
		return nil, fmt.Errorf("restart: %w", err)
	}
	for k, v := range rs {
		s[k] = v
	}
	return s, nil
}

type child struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan struct{}
	err            error
}

func startChild(ctx context.Context, bin, kubeconfig string, t0 time.Time, args []string, env ...string) (*child, error) {
	ch := &child{exited: make(chan struct{})}
	ch.cmd = exec.CommandContext(ctx, bin, append([]string{"-t0", strconv.FormatInt(t0.UnixNano(), 10)}, args...)...)
	ch.cmd.Env = append(append(os.Environ(), "KUBECONFIG="+kubeconfig), env...)
	ch.cmd.Stdout, ch.cmd.Stderr = &ch.stdout, &ch.stderr
	if err := ch.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		ch.err = ch.cmd.Wait()
		close(ch.exited)
	}()
	return ch, nil
}

// report sends sig (if any), waits for the process to end and parses its
// JSON line.
func (ch *child) report(sig os.Signal) (sample, error) {
	if sig != nil {
		if err := ch.cmd.Process.Signal(sig); err != nil {
			return nil, err
		}
	}
	select {
	case <-ch.exited:
	case <-time.After(2 * time.Minute):
		_ = ch.cmd.Process.Kill()
		<-ch.exited
	}
	if ch.err != nil {
		return nil, fmt.Errorf("%w: %s", ch.err, tail(ch.stderr.String(), 1500))
	}
	var last string
	for _, l := range bytes.Split(ch.stdout.Bytes(), []byte("\n")) {
		if l = bytes.TrimSpace(l); bytes.HasPrefix(l, []byte("{")) {
			last = string(l)
		}
	}
	if last == "" {
		return nil, fmt.Errorf("no JSON result; stderr: %s", tail(ch.stderr.String(), 1500))
	}
	return parseSample(last)
}

// crPopulate creates namespace ns with n objects of the workload: unlabeled
// Deployments, or Foos asking for 1–3 replicas.
func crPopulate(ctx context.Context, c *client.Client, workload, ns string, n int) error {
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if workload == "labeler" {
		deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
		return fixture.Parallel(ctx, n, 32, func(i int) error {
			_, err := deps.Create(ctx, fixture.LabelerDeployment(fmt.Sprintf("d-%05d", i)), metav1.CreateOptions{})
			return err
		})
	}
	fs := client.Typed[*foos.Foo](c).Namespace(ns)
	return fixture.Parallel(ctx, n, 32, func(i int) error {
		replicas := int32(1 + i%3)
		name := fmt.Sprintf("foo-%05d", i)
		_, err := fs.Create(ctx, &foos.Foo{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       foos.Spec{DeploymentName: name + "-dep", Replicas: &replicas},
		}, metav1.CreateOptions{})
		return err
	})
}

// crCleanup deletes the Deployments and Foos of ns (no garbage collector
// runs).
func crCleanup(ctx context.Context, c *client.Client, ns string) error {
	if err := client.Typed[*foos.Foo](c).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	return client.Typed[*appsv1.Deployment](c).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
}

// crObserve watches the workload's objects of ns and closes the returned
// channel when all n are in their desired state. For the foo workload it
// also stands in for the Deployment controller until ctx ends.
func crObserve(ctx context.Context, c *client.Client, workload, ns string, n int) (<-chan struct{}, error) {
	f := informer.NewFactory(c, informer.FactoryOptions{})
	done := make(chan struct{})
	var mu sync.Mutex
	ok := map[string]bool{}
	count := 0
	mark := func(name string, good bool) {
		mu.Lock()
		defer mu.Unlock()
		if ok[name] == good {
			return
		}
		ok[name] = good
		if good {
			count++
		} else {
			count--
		}
		if count == n {
			close(done)
		}
	}
	if workload == "labeler" {
		inf := mustAcquire(informer.AcquireMetadata(f, appsv1.SchemeGroupVersion.WithResource("deployments"), informer.SharedOptions{Namespace: ns}))
		check := func(d *metav1.PartialObjectMetadata) { _, has := d.Labels["sync-by"]; mark(d.Name, has) }
		if _, err := inf.AddEventHandler(informer.HandlerFuncs[*metav1.PartialObjectMetadata]{
			AddFunc:    func(d *metav1.PartialObjectMetadata, _ bool) { check(d) },
			UpdateFunc: func(_, d *metav1.PartialObjectMetadata) { check(d) },
		}, informer.HandlerOptions{}); err != nil {
			return nil, err
		}
	} else {
		fi := mustAcquire(informer.Acquire[*foos.Foo](f, informer.SharedOptions{Namespace: ns}))
		check := func(x *foos.Foo) {
			mark(x.Name, x.Spec.Replicas != nil && x.Status.AvailableReplicas == *x.Spec.Replicas)
		}
		if _, err := fi.AddEventHandler(informer.HandlerFuncs[*foos.Foo]{
			AddFunc:    func(x *foos.Foo, _ bool) { check(x) },
			UpdateFunc: func(_, x *foos.Foo) { check(x) },
		}, informer.HandlerOptions{}); err != nil {
			return nil, err
		}
		if err := standInDeploymentController(ctx, c, f, ns); err != nil {
			return nil, err
		}
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		return nil, err
	}
	return done, nil
}

// standInDeploymentController makes every Deployment of ns report all its
// replicas available (a merge patch of its status), from 4 goroutines.
func standInDeploymentController(ctx context.Context, c *client.Client, f *informer.Factory, ns string) error {
	di := mustAcquire(informer.Acquire[*appsv1.Deployment](f, informer.SharedOptions{Namespace: ns}))
	todo := make(chan string, 1<<16)
	enqueue := func(d *appsv1.Deployment) {
		if d.Spec.Replicas != nil && d.Status.AvailableReplicas != *d.Spec.Replicas {
			select {
			case todo <- d.Name:
			default:
			}
		}
	}
	if _, err := di.AddEventHandler(informer.HandlerFuncs[*appsv1.Deployment]{
		AddFunc:    func(d *appsv1.Deployment, _ bool) { enqueue(d) },
		UpdateFunc: func(_, d *appsv1.Deployment) { enqueue(d) },
	}, informer.HandlerOptions{}); err != nil {
		return err
	}
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	lister := di.Lister()
	for range 4 {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case name := <-todo:
					d, found := lister.GetKey(informer.Key{Namespace: ns, Name: name})
					if !found || d.Spec.Replicas == nil || d.Status.AvailableReplicas == *d.Spec.Replicas {
						continue
					}
					r := *d.Spec.Replicas
					patch := fmt.Sprintf(`{"status":{"observedGeneration":%d,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"availableReplicas":%d}}`, d.Generation, r, r, r, r)
					if _, err := deps.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil && ctx.Err() == nil {
						logf("stand-in deployment controller: %s: %v", name, err)
					}
				}
			}
		}()
	}
	return nil
}

// mustAcquire returns the informer of a factory that cannot refuse a
// request (no OneInformerPerType), failing loudly if it ever did.
func mustAcquire[T informer.Object](inf *informer.Informer[T], err error) *informer.Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}
