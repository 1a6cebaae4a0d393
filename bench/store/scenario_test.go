package storebench

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// mapDriver is a minimal informer: a locked map fed by the watch.
type mapDriver struct{}

func (mapDriver) Start(ctx context.Context, pods []*corev1.Pod, w watch.Interface, onUpdate func()) (Readers, error) {
	var mu sync.RWMutex
	m := map[string]*corev1.Pod{}
	for _, p := range pods {
		m[p.Name] = p
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-w.ResultChan():
				p := ev.Object.(*corev1.Pod)
				mu.Lock()
				m[p.Name] = p
				mu.Unlock()
				onUpdate()
			}
		}
	}()
	count := func() int {
		mu.RLock()
		defer mu.RUnlock()
		out := make([]*corev1.Pod, 0, len(m))
		for _, p := range m {
			out = append(out, p)
		}
		return len(out)
	}
	return Readers{List: count, Namespace: func(string) int { return count() }}, nil
}

func TestRunReportsEveryPhase(t *testing.T) {
	r, err := run(t.Context(), mapDriver{}, 200, 2, 50*time.Millisecond, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"writes_per_sec", "lists_per_sec", "writes_per_sec_namespace", "lists_per_sec_namespace", "writes_per_sec_idle"} {
		if r.Metrics[k] <= 0 {
			t.Errorf("%s = %v, want > 0", k, r.Metrics[k])
		}
	}
	if _, ok := r.Metrics["lists_per_sec_idle"]; ok {
		t.Error("the idle phase has no readers but reports lists_per_sec_idle")
	}
}
