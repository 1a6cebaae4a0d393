package faults_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// viaProxy returns cfg pointed at the proxy.
func viaProxy(cfg *rest.Config, p *tcpProxy) *rest.Config {
	cfg.Host = p.URL()
	return cfg
}

func apiAddr(t *testing.T, u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return pu.Host
}

// Baseline: no fault. The oracle must hold and a single initial fetch is
// expected.
func TestNoFault(t *testing.T) {
	cp := testenv.Shared(t)
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	res := run{TruthCfg: cp.Config(), InfCfg: func(string) *rest.Config { return viaProxy(cp.Config(), p) }}.
		do(t, func(ctx context.Context, w *watched, wr *writer) { sleepCtx(ctx, 3*time.Second) })
	if res.Lists+res.Streams != 1 {
		t.Errorf("without faults: %d LISTs and %d streaming watches, want one initial fetch", res.Lists, res.Streams)
	}
}

// Scenario 6: every open connection is reset (RST) every 3 s for 20 s.
func TestConnectionResets(t *testing.T) {
	cp := testenv.Shared(t)
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	resets := 0
	run{TruthCfg: cp.Config(), InfCfg: func(string) *rest.Config { return viaProxy(cp.Config(), p) }}.
		do(t, func(ctx context.Context, w *watched, wr *writer) {
			end := time.Now().Add(20 * time.Second)
			for time.Now().Before(end) && ctx.Err() == nil {
				sleepCtx(ctx, 3*time.Second)
				resets += p.Reset()
			}
		})
	t.Logf("connections reset: %d, accepted: %d", resets, p.accepted.Load())
	if resets < 4 {
		t.Errorf("only %d connections were reset; the fault did not hit the watch", resets)
	}
}

// Scenario 5: the watch's connection turns half-open (bytes vanish, no
// FIN, no RST). HTTP/2 health pings (1 s interval, 1 s timeout) must
// notice it and the informer must reconnect once the path works again.
func TestHalfOpenDetectedByPing(t *testing.T) {
	cp := testenv.Shared(t)
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	var detected time.Duration
	run{TruthCfg: cp.Config(), InfCfg: func(string) *rest.Config {
		cfg := viaProxy(cp.Config(), p)
		cfg.HealthPingInterval = time.Second
		cfg.PingTimeout = time.Second
		return cfg
	}}.do(t, func(ctx context.Context, w *watched, wr *writer) {
		before := p.accepted.Load()
		start := time.Now()
		p.SetMode(l4BlackHole)
		for p.accepted.Load() == before && time.Since(start) < 20*time.Second {
			time.Sleep(50 * time.Millisecond)
		}
		detected = time.Since(start)
		sleepCtx(ctx, 2*time.Second)
		p.SetMode(l4Pass)
		p.Reset() // the redial made during the black hole is stuck in its handshake
	})
	t.Logf("half-open connection replaced after %s", detected.Round(10*time.Millisecond))
	if detected >= 20*time.Second {
		t.Errorf("half-open connection not detected within 20s (ping interval 1s, timeout 1s)")
	} else if detected > 5*time.Second {
		t.Errorf("half-open connection detected after %s, want within ~2s (ping interval 1s + timeout 1s)", detected)
	}
}

// Scenarios 3 and 4 share one control plane with the watch cache off and
// no automatic compaction, so that a compaction forced through etcd's
// gateway is the only one.
func TestCompaction(t *testing.T) {
	cp := testenv.StartForTest(t, testenv.Options{APIServerFlags: []string{"--watch-cache=false", "--etcd-compaction-interval=0"}})
	t.Run("watch resumed after compaction gets 410", func(t *testing.T) { testCompactionGone(t, cp) })
	t.Run("expired continue token", func(t *testing.T) { testExpiredContinue(t, cp) })
}

// Scenario 3: a 410 forced by compaction. The watch is cut while the
// writer goes on and etcd is compacted past the informer's
// resourceVersion; with the watch cache off, the resumed watch gets 410
// Gone and the informer must relist without losing a delete.
func testCompactionGone(t *testing.T, cp *testenv.ControlPlane) {
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	var before int64
	res := run{TruthCfg: cp.Config(), InfCfg: func(string) *rest.Config { return viaProxy(cp.Config(), p) }}.
		do(t, func(ctx context.Context, w *watched, wr *writer) {
			before = w.cnt.lists.Load() + w.cnt.streams.Load()
			p.SetMode(l4Refuse)
			p.Reset()
			sleepCtx(ctx, 2*time.Second)
			rv := wr.lastRV()
			if err := compact(ctx, cp.EtcdEndpoint(), rv); err != nil {
				t.Errorf("compacting etcd at %s: %v", rv, err)
			}
			t.Logf("etcd compacted at revision %s", rv)
			sleepCtx(ctx, time.Second)
			p.SetMode(l4Pass)
			sleepCtx(ctx, 3*time.Second)
		})
	if fetches := int64(res.Lists+res.Streams) - before; fetches < 1 {
		t.Errorf("no relist after compaction (%d full fetches after the cut): the 410 was not seen", fetches)
	}
}

// Scenarios 1 and 2 share one control plane with a second API server on
// the same etcd. The first API server is started with
// --shutdown-send-retry-after=true and a 2 s shutdown delay.
func TestAPIServerRestarts(t *testing.T) {
	cp := testenv.StartForTest(t, testenv.Options{APIServerFlags: []string{
		"--shutdown-send-retry-after=true", "--shutdown-delay-duration=2s"}})
	as2, err := cp.StartAPIServer(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("kill -9", func(t *testing.T) { testAPIServerDown(t, cp.APIServer(), as2, false) })
	t.Run("graceful shutdown", func(t *testing.T) {
		long(t)
		testAPIServerDown(t, cp.APIServer(), as2, true)
	})
}

// Scenario 1 (graceful=false): kill -9 of the API server under the
// informer's watch. Scenario 2 (graceful=true): SIGTERM, so the server
// sends GOAWAY, answers 429 with Retry-After while it drains, and exits.
// Either way writes go on through the second API server and the first
// restarts on the same port.
func testAPIServerDown(t *testing.T, as1, as2 *testenv.APIServer, graceful bool) {
	var down time.Duration
	wcnt := &counter{}
	res := run{TruthCfg: as2.Config(), WriteCfgs: []*rest.Config{wcnt.wrap(as1.Config()), as2.Config()},
		InfCfg: func(string) *rest.Config { return as1.Config() }}.
		do(t, func(ctx context.Context, w *watched, wr *writer) {
			start := time.Now()
			if graceful {
				// Long enough for the 2 s shutdown delay and the drain:
				// the server exits by itself, answering 429 meanwhile.
				as1.StopWithGrace(20 * time.Second)
			} else {
				as1.Kill()
			}
			sleepCtx(ctx, 2*time.Second)
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := as1.Restart(rctx); err != nil {
				t.Errorf("restart: %v", err)
			}
			down = time.Since(start)
			sleepCtx(ctx, 3*time.Second)
		})
	t.Logf("first API server down for %s; 429s seen: informer %d, writer %d", down.Round(100*time.Millisecond), res.TooMany, wcnt.tooMany.Load())
}

var _ = informer.ReflectorOptions{}
