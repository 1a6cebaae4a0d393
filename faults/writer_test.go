package faults_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

// writer creates, updates and deletes ConfigMaps named cm-0..cm-(Names-1)
// in one namespace at a steady rate, through the first of its clients that
// answers. It counts the acknowledged writes and keeps the newest
// resourceVersion, the names present and the names ever created (bounded
// by Names, so a long run does not grow).
type writer struct {
	Clients []*client.Resource[*corev1.ConfigMap]
	Names   int
	Every   time.Duration

	mu       sync.Mutex
	acked    int
	last     string // resourceVersion of the newest acknowledged write that has one
	failures int
	present  map[string]bool
	ever     map[string]bool // names ever acknowledged as created
}

// run writes until ctx ends. It never fails the test: a write the server
// did not acknowledge is counted as a failure and its outcome is left to
// the oracle's fresh LIST.
func (w *writer) run(ctx context.Context) {
	w.mu.Lock()
	w.present, w.ever = map[string]bool{}, map[string]bool{}
	w.mu.Unlock()
	rng := rand.New(rand.NewPCG(1, 2))
	tick := time.NewTicker(w.Every)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("cm-%d", rng.IntN(w.Names))
		w.mu.Lock()
		present := w.present[name]
		w.mu.Unlock()
		op := "create"
		if present {
			op = "update"
			if rng.IntN(4) == 0 {
				op = "delete"
			}
		}
		w.do(ctx, name, op, i)
	}
}

func (w *writer) do(ctx context.Context, name, op string, i int) {
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var lastErr error
	for _, c := range w.Clients {
		var rv string
		var err error
		switch op {
		case "create":
			var o *corev1.ConfigMap
			o, err = c.Create(wctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": fmt.Sprint(i)}}, metav1.CreateOptions{})
			if err == nil {
				rv = o.ResourceVersion
			} else if apierrors.IsAlreadyExists(err) {
				w.mark(name, true)
				return
			}
		case "update":
			var o *corev1.ConfigMap
			o, err = c.Update(wctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": fmt.Sprint(i)}}, metav1.UpdateOptions{})
			if err == nil {
				rv = o.ResourceVersion
			} else if apierrors.IsNotFound(err) {
				w.mark(name, false)
				return
			}
		case "delete":
			err = c.Delete(wctx, name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				w.mark(name, false)
				return
			}
		}
		if err == nil {
			w.mu.Lock()
			w.acked++
			if rv != "" {
				w.last = rv
			}
			w.present[name] = op != "delete"
			if op == "create" {
				w.ever[name] = true
			}
			w.mu.Unlock()
			return
		}
		lastErr = err
		if ctx.Err() != nil {
			return
		}
	}
	if lastErr != nil {
		w.mu.Lock()
		w.failures++
		w.mu.Unlock()
	}
}

func (w *writer) mark(name string, present bool) {
	w.mu.Lock()
	w.present[name] = present
	if present {
		w.ever[name] = true
	}
	w.mu.Unlock()
}

// stats returns the number of acknowledged writes, failed writes, and
// the names ever created.
func (w *writer) stats() (acked, failed int, ever map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ever = make(map[string]bool, len(w.ever))
	for k := range w.ever {
		ever[k] = true
	}
	return w.acked, w.failures, ever
}

// lastRV returns the resourceVersion of the newest acknowledged write that
// carries one.
func (w *writer) lastRV() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// startWriter runs w in the background; the returned function stops it and
// waits for it.
func startWriter(t *testing.T, w *writer) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}
