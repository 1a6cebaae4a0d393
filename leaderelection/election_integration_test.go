package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// setup returns a client of the shared control plane and a fresh namespace.
func setup(t *testing.T) (*client.Client, string) {
	t.Helper()
	cp := testenv.Shared(t)
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	ns := fmt.Sprintf("le-%d", time.Now().UnixNano())
	_, err = client.Typed[*corev1.Namespace](c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, ns
}

type term struct {
	who         string
	start, stop time.Time
}

// TestThreeCandidatesFailOverWithoutOverlap runs three candidates against
// the API server with short durations. Exactly one leads; cancelling the
// leader (without release) hands over within LeaseDuration+RetryPeriod,
// cancelling the next one (with release) within RetryPeriod; and no two
// recorded terms overlap.
func TestThreeCandidatesFailOverWithoutOverlap(t *testing.T) {
	c, ns := setup(t)
	const (
		leaseDuration = 4 * time.Second
		renewDeadline = 3 * time.Second
		retryPeriod   = 500 * time.Millisecond
		// slack covers the latency of the two requests of a takeover (read,
		// then write) on a loaded test machine.
		slack = 500 * time.Millisecond
	)
	lock := types.NamespacedName{Namespace: ns, Name: "three"}
	store := leaderelection.NewStore(c)

	var mu sync.Mutex
	var terms []term
	started := make(chan string, 10)
	type cand struct {
		e      *leaderelection.Elector
		cancel context.CancelFunc
		done   chan error
	}
	cands := map[string]*cand{}
	var electors []*leaderelection.Elector // for the sampler; cands changes
	for i := range 3 {
		id := fmt.Sprint("candidate-", i)
		e, err := leaderelection.New(store, leaderelection.Config{
			Lock: lock, Identity: id,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			ReleaseOnCancel: i == 1 || i == 2, // candidate-0 never releases
			Callbacks: leaderelection.Callbacks{OnStartedLeading: func(ctx context.Context) {
				start := time.Now()
				started <- id
				<-ctx.Done()
				mu.Lock()
				terms = append(terms, term{id, start, time.Now()})
				mu.Unlock()
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cd := &cand{e: e, cancel: cancel, done: make(chan error, 1)}
		cands[id] = cd
		electors = append(electors, e)
		go func() { cd.done <- e.Run(ctx) }()
		if i == 0 {
			// candidate-0, which does not release, leads first, so the
			// first hand-over is by expiry and the second by release.
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("candidate-0 did not acquire a free lease")
			}
			started <- id
		}
	}
	defer func() {
		for _, cd := range cands {
			cd.cancel()
			<-cd.done
		}
	}()

	// A sampler checks that at most one candidate believes it leads.
	sampleCtx, stopSampling := context.WithCancel(t.Context())
	sampled := make(chan error, 1)
	go func() {
		var err error
		for sampleCtx.Err() == nil {
			n := 0
			for _, e := range electors {
				if e.IsLeader() {
					n++
				}
			}
			if n > 1 && err == nil {
				err = fmt.Errorf("%d candidates lead at once", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
		sampled <- err
	}()

	waitLeader := func(within time.Duration) (string, time.Duration) {
		t.Helper()
		from := time.Now()
		select {
		case id := <-started:
			return id, time.Since(from)
		case <-time.After(within):
			t.Fatalf("no new leader within %v", within)
			return "", 0
		}
	}

	first, _ := waitLeader(2*leaseDuration + retryPeriod)
	t.Logf("first leader: %s", first)
	time.Sleep(2 * time.Second) // some renewals
	leaders := 0
	for id, cd := range cands {
		if cd.e.IsLeader() {
			leaders++
		}
		if got := cd.e.Leader(); got != first {
			t.Errorf("%s sees leader %q, want %q", id, got, first)
		}
	}
	if leaders != 1 {
		t.Fatalf("%d leaders, want exactly 1", leaders)
	}

	// Hand over twice: once by expiry (if the first leader does not
	// release), once by release.
	current := first
	for round := range 2 {
		cd := cands[current]
		release := current != "candidate-0"
		cd.cancel()
		if err := <-cd.done; err != nil {
			t.Fatalf("%s: Run = %v", current, err)
		}
		delete(cands, current)
		bound := leaseDuration + retryPeriod + slack
		if release {
			bound = retryPeriod + slack
		}
		next, took := waitLeader(bound)
		t.Logf("round %d: %s cancelled (release=%v); %s leads after %v (bound %v)", round, current, release, next, took, bound)
		if next == current {
			t.Fatalf("cancelled candidate %s leads again", current)
		}
		current = next
	}

	stopSampling()
	if err := <-sampled; err != nil {
		t.Fatal(err)
	}
	for _, cd := range cands {
		cd.cancel()
		if err := <-cd.done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v", err)
		}
	}
	clear(cands)
	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(terms, func(a, b term) int { return a.start.Compare(b.start) })
	if len(terms) != 3 {
		t.Fatalf("%d terms recorded, want 3: %v", len(terms), terms)
	}
	for i := 1; i < len(terms); i++ {
		if !terms[i].start.After(terms[i-1].stop) {
			t.Fatalf("terms overlap: %s led until %v, %s from %v", terms[i-1].who, terms[i-1].stop, terms[i].who, terms[i].start)
		}
		t.Logf("%s stopped, %s started %v later", terms[i-1].who, terms[i].who, terms[i].start.Sub(terms[i-1].stop))
	}
}
