package faults_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// run is the common shape of an informer scenario: a namespace, a writer
// (through writeCfgs, first that answers), an informer through infCfg,
// the fault (which runs while the writer writes), two quiet seconds,
// then the oracle against a fresh LIST through truthCfg.
type run struct {
	TruthCfg  *rest.Config
	WriteCfgs []*rest.Config // nil: TruthCfg
	InfCfg    func(ns string) *rest.Config
	Reflector informer.ReflectorOptions
	Names     int           // 0: 30
	Every     time.Duration // 0: 25ms (40 writes/s)
	// Setup, if set, runs before the informer starts (e.g. to install
	// proxy rules that hit its first requests).
	Setup func()
}

func (r run) do(t *testing.T, fault func(ctx context.Context, w *watched, wr *writer)) result {
	t.Helper()
	tc := newClient(t, r.TruthCfg)
	ns := newNamespace(t, tc)
	truth := client.Typed[*corev1.ConfigMap](tc).Namespace(ns)
	wr := &writer{Names: r.Names, Every: r.Every}
	if wr.Names == 0 {
		wr.Names = 30
	}
	if wr.Every == 0 {
		wr.Every = 25 * time.Millisecond
	}
	if r.WriteCfgs == nil {
		wr.Clients = []*client.Resource[*corev1.ConfigMap]{truth}
	}
	for _, cfg := range r.WriteCfgs {
		wr.Clients = append(wr.Clients, client.Typed[*corev1.ConfigMap](newClient(t, cfg)).Namespace(ns))
	}
	stopWriter := startWriter(t, wr)
	sleepCtx(t.Context(), 500*time.Millisecond)
	if r.Setup != nil {
		r.Setup()
	}
	w := startInformer(t, r.InfCfg(ns), ns, r.Reflector)
	sleepCtx(t.Context(), time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	fault(ctx, w, wr)
	cancel()
	sleepCtx(t.Context(), time.Second)
	stopWriter()
	acked, failed, ever := wr.stats()
	t.Logf("writer: %d writes acknowledged, %d failed", acked, failed)
	return w.check(t, truth, ever)
}
