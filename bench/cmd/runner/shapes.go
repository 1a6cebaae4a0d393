package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// This file holds the shapes (populations in which no value recurs, one
// informer sync per kind, and the Event churn) and the scale curve (the
// sync of the suite's Pods at several counts).

// shape is one population of the shapes rows.
type shape struct {
	name      string // benchmark name
	kind      string // the informer binary's -kind
	namespace string
	// create makes object i; n says how many the population holds.
	create func(ctx context.Context, c *client.Client, dc *dynamic.Client, i int) error
	n      func(o options) int
}

func createIn[T informer.Object](ns string, obj func(int) T) func(context.Context, *client.Client, *dynamic.Client, int) error {
	return func(ctx context.Context, c *client.Client, _ *dynamic.Client, i int) error {
		_, err := client.Typed[T](c).Namespace(ns).Create(ctx, obj(i), metav1.CreateOptions{FieldManager: fixture.FieldManager})
		return err
	}
}

var shapes = []shape{
	{"sync-unique-pods", "pods", fixture.UniquePodNamespace, createIn(fixture.UniquePodNamespace, fixture.UniquePod), func(o options) int { return o.pods }},
	{"sync-configmaps", "configmaps", fixture.ConfigMapNamespace, createIn(fixture.ConfigMapNamespace, fixture.BigConfigMap), func(o options) int { return o.shapeN }},
	{"sync-secrets", "secrets", fixture.SecretNamespace, createIn(fixture.SecretNamespace, fixture.Secret), func(o options) int { return o.shapeN }},
	{"sync-endpointslices", "endpointslices", fixture.EndpointSliceNamespace, createIn(fixture.EndpointSliceNamespace, fixture.EndpointSlice), func(o options) int { return o.shapeN }},
	{"sync-widgets", "widgets", fixture.WidgetNamespace, func(ctx context.Context, _ *client.Client, dc *dynamic.Client, i int) error {
		_, err := dc.Resource(fixture.WidgetGVR).Namespace(fixture.WidgetNamespace).Create(ctx, fixture.Widget(i), metav1.CreateOptions{FieldManager: fixture.FieldManager})
		return err
	}, func(o options) int { return o.shapeN }},
}

const churnBenchmark = "churn"

// shapeNames are the shapes rows in table order, the churn row last.
func shapeNames() []string {
	var names []string
	for _, s := range shapes {
		names = append(names, s.name)
	}
	return append(names, churnBenchmark)
}

func scaleName(n int) string { return "scale-" + strconv.Itoa(n) }

// parseScale reads a comma-separated list of Pod counts.
func parseScale(s string) ([]int, error) {
	var ns []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("scale: %q is not a positive count", f)
		}
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return slices.Compact(ns), nil
}

var (
	shapeMetrics = []string{"sync_seconds", "live_heap_mb", "peak_rss_mb", "total_alloc_mb"}
	shapeTargets = map[string]target{
		"sync_seconds":   {"≤ 0.8", func(r row) bool { return r.Ratio <= 0.8 }},
		"live_heap_mb":   {"≤ 0.6", func(r row) bool { return r.Ratio <= 0.6 }},
		"total_alloc_mb": {"≤ 0.5", func(r row) bool { return r.Ratio <= 0.5 }},
	}
	scaleMetrics = []string{"live_heap_kb_per_obj", "sync_us_per_obj", "live_heap_mb", "sync_seconds"}
)

// The shapes' rows, targets and table order join the report's tables.
func init() {
	for _, s := range shapes {
		shown[s.name] = shapeMetrics
		for m, t := range shapeTargets {
			targets[s.name+"/"+m] = t
		}
	}
	shown[churnBenchmark] = []string{"events_per_sec", "cpu_us_per_event", "alloc_kb_per_event", "live_heap_mb", "peak_rss_mb"}
	targets[churnBenchmark+"/cpu_us_per_event"] = target{"≤ 0.8", func(r row) bool { return r.Ratio <= 0.8 }}
	targets[churnBenchmark+"/alloc_kb_per_event"] = shapeTargets["total_alloc_mb"]
	targets[churnBenchmark+"/live_heap_mb"] = shapeTargets["live_heap_mb"]
	// The compact cache's targets: Pods where nothing repeats a third of
	// client-go's, ConfigMaps and Secrets (their data the floor) 0.8.
	targets["sync-unique-pods/live_heap_mb"] = target{"≤ 0.35", func(r row) bool { return r.Ratio <= 0.35 }}
	targets["sync-unique-pods/peak_rss_mb"] = target{"≤ 0.35", func(r row) bool { return r.Ratio <= 0.35 }}
	for _, n := range []string{"sync-configmaps", "sync-secrets"} {
		targets[n+"/live_heap_mb"] = target{"≤ 0.8", func(r row) bool { return r.Ratio <= 0.8 }}
	}
	i := slices.Index(order, "sync-dynamic") + 1
	order = slices.Insert(order, i, shapeNames()...)
}

// registerScale adds the scale rows of counts to the report's tables,
// after the shapes.
func registerScale(counts []int) {
	i := slices.Index(order, churnBenchmark) + 1
	for _, n := range counts {
		name := scaleName(n)
		shown[name] = scaleMetrics
		if n >= 20_000 {
			targets[name+"/live_heap_mb"] = target{"≤ 0.3", func(r row) bool { return r.Ratio <= 0.3 }}
		}
		order = slices.Insert(order, i, name)
		i++
	}
}

// populateShapes creates the wanted shapes' populations and the scale
// namespaces' Pods (a count equal to o.pods uses fixture.PodNamespace).
func populateShapes(ctx context.Context, cfg *rest.Config, o options, want func(string) bool) error {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	c, dc := client.New(rc, client.Options{}), dynamic.New(rc, dynamic.Options{})
	ns := func(name string) error {
		_, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	}
	for _, s := range shapes {
		if !want(s.name) {
			continue
		}
		if err := ns(s.namespace); err != nil {
			return err
		}
		if s.kind == "widgets" {
			def, err := crd.FromValue(fixture.WidgetCRD())
			if err != nil {
				return err
			}
			if err := crd.Install(ctx, dc, []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
				return err
			}
		}
		n, t0 := s.n(o), time.Now()
		if err := fixture.Parallel(ctx, n, 32, func(i int) error { return s.create(ctx, c, dc, i) }); err != nil {
			return fmt.Errorf("populating %s: %w", s.name, err)
		}
		logf("populated %s: %d objects in %s", s.name, n, time.Since(t0).Round(time.Second))
	}
	if want(churnBenchmark) {
		if err := ns(fixture.EventNamespace); err != nil {
			return err
		}
	}
	for _, n := range o.scale {
		if n == o.pods || !want(scaleName(n)) {
			continue
		}
		if err := ns(fixture.ScaleNamespace(n)); err != nil {
			return err
		}
		t0 := time.Now()
		pods := client.Typed[*corev1.Pod](c).Namespace(fixture.ScaleNamespace(n))
		if err := fixture.Parallel(ctx, n, 32, func(i int) error {
			p := fixture.Pod(i)
			p.Namespace = fixture.ScaleNamespace(n)
			_, err := pods.Create(ctx, p, metav1.CreateOptions{FieldManager: fixture.FieldManager})
			return err
		}); err != nil {
			return fmt.Errorf("populating %s: %w", scaleName(n), err)
		}
		logf("populated %s: %d Pods in %s", scaleName(n), n, time.Since(t0).Round(time.Second))
	}
	return nil
}

// runShapes runs the wanted shapes rows, the churn row and the scale rows
// with the informer binaries. A row that fails is named in rep.Missing
// and the others still run.
func (rep *report) runShapes(ctx context.Context, o options, want func(string) bool, bins map[string]string, kubeconfig string, cfg *rest.Config) error {
	failed := func(name string, err error) error {
		if ctx.Err() != nil {
			return err
		}
		logf("%s failed: %v", name, err)
		rep.Missing = append(rep.Missing, name+" (failed: "+tail(err.Error(), 300)+")")
		delete(rep.raw, name)
		return nil
	}
	for _, s := range shapes {
		if !want(s.name) {
			continue
		}
		args := []string{"-scenario", "sync-shape", "-kind", s.kind, "-namespace", s.namespace, "-kubeconfig", kubeconfig}
		if err := rep.ab(ctx, o, s.name, func(impl string) []string { return append([]string{bins[impl]}, args...) }); err != nil {
			if err := failed(s.name, err); err != nil {
				return err
			}
		}
	}
	if want(churnBenchmark) {
		if err := rep.churn(ctx, o, bins, kubeconfig, cfg); err != nil {
			if err := failed(churnBenchmark, err); err != nil {
				return err
			}
		}
	}
	for _, n := range o.scale {
		name := scaleName(n)
		if !want(name) {
			continue
		}
		if n == o.pods && len(rep.raw["sync"]) > 0 {
			// The sync row synced these very Pods: its runs are this point.
			for impl, ss := range rep.raw["sync"] {
				for _, s := range ss {
					rep.add(name, impl, s)
				}
			}
			continue
		}
		ns := fixture.PodNamespace
		if n != o.pods {
			ns = fixture.ScaleNamespace(n)
		}
		args := []string{"-scenario", "sync", "-namespace", ns, "-kubeconfig", kubeconfig}
		if err := rep.ab(ctx, o, name, func(impl string) []string { return append([]string{bins[impl]}, args...) }); err != nil {
			if err := failed(name, err); err != nil {
				return err
			}
		}
	}
	return nil
}

// churn runs the churn row: Events are created at o.churnRate per second
// in fixture.EventNamespace for the whole row, and before each run the
// Events of the previous ones are deleted, so that every run's cache
// starts empty.
func (rep *report) churn(ctx context.Context, o options, bins map[string]string, kubeconfig string, cfg *rest.Config) error {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	events := client.Typed[*corev1.Event](client.New(rc, client.Options{})).Namespace(fixture.EventNamespace)
	cctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var created, failed int64
	var mu sync.Mutex
	tokens := make(chan int)
	wg.Add(1)
	go func() { // the pace: o.churnRate tokens per second
		defer wg.Done()
		defer close(tokens)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		start, i := time.Now(), 0
		for {
			select {
			case <-cctx.Done():
				return
			case <-tick.C:
			}
			for due := int(time.Since(start).Seconds() * float64(o.churnRate)); i < due; i++ {
				select {
				case tokens <- i:
				case <-cctx.Done():
					return
				default: // the writers are behind: drop the token
				}
			}
		}
	}()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tokens {
				_, err := events.Create(cctx, fixture.Event(i), metav1.CreateOptions{})
				mu.Lock()
				if err != nil {
					failed++
				} else {
					created++
				}
				mu.Unlock()
			}
		}()
	}
	defer func() {
		stop()
		wg.Wait()
		logf("churn: %d Events created, %d failed", created, failed)
	}()
	args := []string{"-scenario", "churn", "-kubeconfig", kubeconfig, "-window", o.churnWindow.String()}
	return rep.abWith(ctx, o, churnBenchmark, func(impl string) []string { return append([]string{bins[impl]}, args...) }, func() error {
		return events.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	})
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
