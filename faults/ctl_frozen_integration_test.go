//go:build linux

package faults_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/testenv"
)

// Controller C6: a frozen leader. Leader a works through the objects (50
// workers, 1 s of work before each write) with b waiting; a is frozen
// with SIGSTOP mid-work, b takes the Lease once it expires, every
// object's data changes and b marks them all. Then a resumes (SIGCONT):
// its reconciles that were frozen mid-work still hold the old data and
// their timers have all run out at once. None of them may reach the API
// server: the oracle is a watch of the objects, which must see no mark
// going back to the old value, and every object must end marked with the
// new one. Without the client's term guard (leaderelection.GuardTransport)
// this holds only as long as the term's timer wins its race with the
// workers' timers after the resume, which it usually does; the guard
// makes it hold regardless.
const frozenWork = time.Second // each reconcile's work before it writes

func TestControllerFrozenLeader(t *testing.T) {
	n := scale(200, 2000)
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	createObjects(t, c, ns, n, "1")
	dir := t.TempDir()
	lease := scale(6*time.Second, 15*time.Second) // a 2 s renew deadline is missed under load
	logs := map[string]string{}
	opts := func(id string) ctlOptions {
		logs[id] = dir + "/" + id + ".log"
		return ctlOptions{Namespace: ns, Identity: id, Work: frozenWork, Workers: 50, Lease: lease, LogPath: logs[id]}
	}
	within := scale(time.Minute, 5*time.Minute)

	a := startChild(t, cp.Config(), opts("a"))
	waitLogCount(t, logs["a"], "wrote", n/4, within)
	b := startChild(t, cp.Config(), opts("b"))
	sleepCtx(t.Context(), 2*time.Second) // b synced, waiting for the Lease
	a.signal(syscall.SIGSTOP)
	frozeAt, frozeMono := time.Now(), monotonicNow()
	t.Cleanup(func() { a.signal(syscall.SIGCONT) }) // so that cleanup's SIGKILL is not held up

	electCtx, cancelElect := context.WithTimeout(t.Context(), within)
	defer cancelElect()
	kubegotest.Eventually(electCtx, t, func(context.Context) error {
		if firstEvent(readReconLogs(t, logs["b"]), "b", "elected") == 0 {
			return errors.New("b not elected since a's freeze")
		}
		return nil
	})
	elected := time.Since(frozeAt)
	setWant(t, c, ns, n, "2")
	marked := waitMarked(t, c, ns, wantKey, n, within)

	// From here on, no mark may go back to "1".
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	list, err := cms.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stopWatch := context.WithCancel(t.Context())
	defer stopWatch()
	w, err := cms.Watch(wctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	stale := make(chan string, n)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Modified && cm.Annotations[markKey] == "1" {
				stale <- cm.Name
			}
		}
	}()

	frozen := time.Since(frozeAt)
	a.signal(syscall.SIGCONT)
	resumedAt := monotonicNow()
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		t.Errorf("a still running 30 s after it resumed without its Lease")
	}
	sleepCtx(t.Context(), 2*time.Second) // any late write would show on the watch by now
	stopWatch()
	<-watched
	close(stale)
	var staleNames []string
	for name := range stale {
		staleNames = append(staleNames, name)
	}
	waitMarked(t, c, ns, wantKey, n, within) // still all marked with the new data
	b.term(t, 30*time.Second)

	evs := readReconLogs(t, logs["a"], logs["b"])
	var aAfter, refused, aWroteAfter int
	lastStart := map[string]int64{} // a's last reconcile start before the freeze, by key
	for _, e := range evs {
		if e.ID != "a" {
			continue
		}
		if e.Event == "start" && e.T < frozeMono {
			lastStart[e.Key] = e.T
		}
		if e.Event == "end" && e.T > resumedAt {
			aAfter++
			switch e.Outcome {
			case "wrote":
				aWroteAfter++
			case "refused":
				refused++
			}
		}
	}
	// A write a had already sent when it was frozen reaches the server
	// when it resumes: leases cannot fence it (a write conditioned on the
	// resourceVersion it read would be refused as a conflict). Any other
	// stale write is a failure.
	var inFlight, late []string
	for _, name := range staleNames {
		start, ok := lastStart[ns+"/"+name]
		if ok && start+int64(frozenWork) <= frozeMono+int64(50*time.Millisecond) {
			inFlight = append(inFlight, name)
		} else {
			late = append(late, name)
		}
	}
	t.Logf("a frozen %s; b elected %s after the freeze, all marked with the new data %s after that; a's reconciles ended after it resumed: %d, writes refused by its client: %d, logged as written: %d; stale marks seen: %d, of writes already sent at the freeze: %d",
		frozen.Round(time.Millisecond), elected.Round(time.Millisecond), marked.Round(time.Millisecond), aAfter, refused, aWroteAfter, len(staleNames), len(inFlight))
	if len(late) > 0 {
		t.Errorf("a's stale writes issued after its freeze reached the server: %v", late)
	}
}
