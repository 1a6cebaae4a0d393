//go:build linux

package faults_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubego/kubego/testenv"
)

// Controller C1: a Manager killed with SIGKILL while it works through
// many objects (each reconcile works 5 ms, then patches; 4 workers). A
// restarted Manager must converge with nothing skipped: every object
// carries the mark of its data.
func TestControllerKilledMidReconcile(t *testing.T) {
	n := scale(200, 5000)
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	createObjects(t, c, ns, n, "1")
	dir := t.TempDir()
	logA, logB := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	o := ctlOptions{Namespace: ns, Identity: "a", Work: 5 * time.Millisecond, Workers: 4, LogPath: logA}

	started := time.Now()
	a := startChild(t, cp.Config(), o)
	waitLogCount(t, logA, "wrote", n/3, 5*time.Minute)
	a.kill(t)
	killedAfter := time.Since(started)
	evA := readReconLogs(t, logA)
	inFlight := len(filterOpen(spans(evA, nil)))

	o.Identity, o.LogPath = "b", logB
	b := startChild(t, cp.Config(), o)
	took := waitMarked(t, c, ns, wantKey, n, scale(time.Minute, 5*time.Minute))
	b.term(t, 30*time.Second)
	evB := readReconLogs(t, logB)
	t.Logf("a: killed after %s, %d objects marked, %d reconciles in flight at the kill; b: converged %s after its start, %d objects marked, %d reconciles in all",
		killedAfter.Round(time.Millisecond), countOutcome(evA, "a", "wrote"), inFlight, took.Round(time.Millisecond),
		countOutcome(evB, "b", "wrote"), len(evB)/2)
	// Every object a did not mark (its logged writes, and at most the
	// writes in flight at the kill) is b's to mark.
	if aw, bw := countOutcome(evA, "a", "wrote"), countOutcome(evB, "b", "wrote"); bw < n-aw-inFlight {
		t.Errorf("b wrote %d marks; a wrote %d with %d in flight, of %d objects", bw, aw, inFlight, n)
	}
}

// filterOpen returns the spans that never ended.
func filterOpen(byKey map[string][]span) []span {
	var out []span
	for _, ss := range byKey {
		for _, s := range ss {
			if s.Open {
				out = append(out, s)
			}
		}
	}
	return out
}

// Controller C2: leader handover under load (Lease of 4 s, renew deadline
// 2 s; 15 s and 7.5 s at full size). Each reconcile that writes
// works 1 s first (50 workers), longer than a waiting candidate needs to
// take a released Lease, so that a leader that let go of the Lease before
// its reconciles ended would show. Leader a works through the objects
// with b waiting; a is stopped with SIGTERM (it drains and releases the
// Lease) and b takes over. Then c starts waiting, every object is changed
// and b, while working on them, is killed with SIGKILL; c takes over once
// the Lease expires. From the three reconcile logs no key may have
// been reconciled by two leaders at overlapping times (a reconcile that
// never ended lasts until its process died).
func TestControllerLeaderHandover(t *testing.T) {
	n := scale(200, 5000)
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	createObjects(t, c, ns, n, "1")
	dir := t.TempDir()
	// The full size loads the machine (5,000 objects, 50 workers under
	// -race): a 2 s renew deadline is then missed and the leader lets go
	// (its child starts a new Manager, as a Pod's restart would
	// (RestartOnLoss), but the churn slows the run), so the full size uses
	// client-go's usual 15 s.
	lease := scale(4*time.Second, 15*time.Second)
	logs := map[string]string{}
	opts := func(id string) ctlOptions {
		logs[id] = filepath.Join(dir, id+".log")
		return ctlOptions{Namespace: ns, Identity: id, Work: time.Second, Workers: 50, Lease: lease, LogPath: logs[id], RestartOnLoss: true}
	}
	within := scale(time.Minute, 5*time.Minute)

	a := startChild(t, cp.Config(), opts("a"))
	waitLogCount(t, logs["a"], "wrote", n/4, within)
	b := startChild(t, cp.Config(), opts("b"))
	sleepCtx(t.Context(), 2*time.Second) // b synced, waiting for the Lease
	a.term(t, 30*time.Second)
	firstDone := waitMarked(t, c, ns, wantKey, n, within)

	cc := startChild(t, cp.Config(), opts("c"))
	sleepCtx(t.Context(), 2*time.Second) // c synced, waiting for the Lease
	setWant(t, c, ns, n, "2")
	waitLogCount(t, logs["b"], "wrote", countOutcome(readReconLogs(t, logs["b"]), "b", "wrote")+n/4, within)
	b.kill(t)
	secondDone := waitMarked(t, c, ns, wantKey, n, within)
	cc.term(t, 30*time.Second)

	exits := map[string]int64{}
	for id, ch := range map[string]*child{"a": a, "b": b, "c": cc} {
		exits[id], _ = ch.result()
	}
	evs := readReconLogs(t, logs["a"], logs["b"], logs["c"])
	byKey := spans(evs, exits)
	bad := overlaps(byKey)
	aEnd, bElected := lastEnd(evs, "a"), firstEvent(evs, "b", "elected")
	bEnd, cElected := lastEnd(evs, "b"), firstEvent(evs, "c", "elected")
	bKilled := exits["b"]
	t.Logf("a→b (SIGTERM, Lease released): a's last reconcile ended %s before b was elected; all marked %s after a's stop",
		time.Duration(bElected-aEnd).Round(time.Millisecond), firstDone.Round(time.Millisecond))
	t.Logf("b→c (SIGKILL): b killed %s after its last logged end; c elected %s after the kill; all marked again %s after the kill; %d reconciles of b open at the kill",
		time.Duration(bKilled-bEnd).Round(time.Millisecond), time.Duration(cElected-bKilled).Round(time.Millisecond),
		secondDone.Round(time.Millisecond), countOpen(byKey, "b"))
	t.Logf("reconciles logged: a %d, b %d, c %d; marks written: a %d, b %d, c %d",
		countEvents(evs, "a", "end"), countEvents(evs, "b", "end"), countEvents(evs, "c", "end"),
		countOutcome(evs, "a", "wrote"), countOutcome(evs, "b", "wrote"), countOutcome(evs, "c", "wrote"))
	if bElected == 0 || cElected == 0 {
		t.Errorf("elections logged: b %v, c %v; want both", bElected != 0, cElected != 0)
	}
	if len(bad) > 0 {
		t.Errorf("%d keys reconciled by two leaders at overlapping times:\n%s", len(bad), joinFirst(bad, 10))
	}
}

func countOpen(byKey map[string][]span, id string) int {
	n := 0
	for _, s := range filterOpen(byKey) {
		if s.ID == id {
			n++
		}
	}
	return n
}

func countEvents(evs []reconEvent, id, event string) int {
	n := 0
	for _, e := range evs {
		if e.ID == id && e.Event == event {
			n++
		}
	}
	return n
}

// joinFirst joins the first n lines of ss and says how many were left out.
func joinFirst(ss []string, n int) string {
	out := ""
	for i, s := range ss {
		if i == n {
			out += "  ...\n"
			break
		}
		out += "  " + s + "\n"
	}
	return out
}
