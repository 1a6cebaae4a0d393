package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/objects"
)

// coldStartBenchmark is the cold start of the sample-controller over many
// existing objects: -cold-n Foos (env BENCH_COLD_N, 20,000), each with the
// Deployment it controls already in its desired state (created by the
// runner as the controllers would create it; no stand-in Deployment
// controller runs, so every status says 0 replicas available, which is
// the desired state of both). Each run starts the controller of one
// library over them (restart mode, alternating the libraries) and reports
// the time from the exec to its N-th reconcile (coldstart_seconds), to
// its last (restart_seconds), its CPU time, reconciles and requests. The
// population is made once and kept for every run; each run only adds
// Events (one Synced Event per reconcile), which neither side watches.
const coldStartBenchmark = "cr-coldstart"

// isCR reports whether benchmark name compares kubego with
// controller-runtime.
func isCR(name string) bool { return contains(crWorkloads, name) || name == coldStartBenchmark }

func init() {
	shown[coldStartBenchmark] = []string{
		"objects", "coldstart_seconds", "restart_seconds", "restart_cpu_seconds", "restart_peak_rss_mb",
		"restart_reconciles", "restart_requests_total", "restart_requests_create", "restart_requests_patch",
	}
}

func (rep *report) coldStart(ctx context.Context, o options, c *client.Client, kubeconfig string, bins map[string]string) error {
	const ns = "cr-coldstart"
	n := o.coldN
	t0 := time.Now()
	if err := coldPopulate(ctx, c, ns, n); err != nil {
		return fmt.Errorf("populating: %w", err)
	}
	logf("%s: %d Foos and their Deployments created in %s", coldStartBenchmark, n, time.Since(t0).Round(time.Second))
	defer func() {
		if err := crCleanup(context.WithoutCancel(ctx), c, ns); err != nil {
			logf("cleaning up %s: %v", ns, err)
		}
	}()
	for r := 1; r <= o.runs; r++ {
		impls := []string{"kubego", "controller-runtime"}
		if r%2 == 0 {
			impls[0], impls[1] = impls[1], impls[0]
		}
		for _, impl := range impls {
			args := []string{"-workload", "foo", "-mode", "restart", "-namespace", ns, "-n", strconv.Itoa(n)}
			if o.profile && impl == "kubego" && r == 1 {
				base := filepath.Join(o.out, "profiles", coldStartBenchmark)
				args = append(args, "-cpuprofile", base+".cpu.pprof", "-memprofile", base+".heap.pprof")
			}
			proc, err := startChild(ctx, bins[controllerBinary(impl, "foo")], kubeconfig, time.Now(), args)
			if err != nil {
				return err
			}
			select {
			case <-proc.exited:
			case <-time.After(15 * time.Minute):
				_ = proc.cmd.Process.Kill()
				return fmt.Errorf("%s %s run %d: not idle after 15 minutes", coldStartBenchmark, impl, r)
			}
			s, err := proc.report(nil)
			if err != nil {
				return fmt.Errorf("%s %s run %d: %w", coldStartBenchmark, impl, r, err)
			}
			s["objects"] = float64(n)
			logf("  %s %s run %d: %s", coldStartBenchmark, impl, r, s.brief(shown[coldStartBenchmark]))
			key := impl
			if impl == "controller-runtime" {
				key = "client-go" // the report's second column
			}
			rep.add(coldStartBenchmark, key, s)
		}
	}
	return nil
}

// coldPopulate creates namespace ns with n Foos asking for 1–3 replicas,
// each with the Deployment both controllers would create for it,
// controlled by it.
func coldPopulate(ctx context.Context, c *client.Client, ns string, n int) error {
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	fs := client.Typed[*foos.Foo](c).Namespace(ns)
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	return fixture.Parallel(ctx, n, 32, func(i int) error {
		replicas := int32(1 + i%3)
		name := fmt.Sprintf("foo-%05d", i)
		foo, err := fs.Create(ctx, &foos.Foo{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       foos.Spec{DeploymentName: name + "-dep", Replicas: &replicas},
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) { // an earlier attempt stored it
			foo, err = fs.Get(ctx, name, metav1.GetOptions{})
		}
		if err != nil {
			return err
		}
		labels := map[string]string{"app": "nginx", "controller": foo.Name}
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: foo.Spec.DeploymentName},
			Spec: appsv1.DeploymentSpec{
				Replicas: foo.Spec.Replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
				},
			},
		}
		if err := objects.SetControllerReference(foo, dep, c); err != nil {
			return err
		}
		_, err = deps.Create(ctx, dep, metav1.CreateOptions{})
		return err
	})
}
