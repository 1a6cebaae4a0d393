package informertest_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/informer/informertest"
)

// mirror rebuilds the collection from handler events alone.
type mirror struct {
	mu   sync.Mutex
	objs map[informer.Key]string
	errs []string
}

func (m *mirror) OnAdd(o *corev1.ConfigMap, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[informer.KeyOf(o)]; ok {
		m.errs = append(m.errs, "add of a present key "+informer.KeyOf(o).String())
	}
	m.objs[informer.KeyOf(o)] = o.ResourceVersion
}

func (m *mirror) OnUpdate(old, o *corev1.ConfigMap) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.objs[informer.KeyOf(o)] != old.ResourceVersion {
		m.errs = append(m.errs, fmt.Sprintf("update of %s from %s, mirror has %s", informer.KeyOf(o), old.ResourceVersion, m.objs[informer.KeyOf(o)]))
	}
	m.objs[informer.KeyOf(o)] = o.ResourceVersion
}

func (m *mirror) OnDelete(o *corev1.ConfigMap, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[informer.KeyOf(o)]; !ok {
		m.errs = append(m.errs, "delete of an absent key "+informer.KeyOf(o).String())
	}
	delete(m.objs, informer.KeyOf(o))
}

// TestInformerConvergesUnderChaos drives an informer against a tracker with
// random writes, broken watches, compacted history (410 relists), failing
// calls and bookmarks, and checks that both the cache and a copy rebuilt
// from handler events alone end equal to the tracker.
func TestInformerConvergesUnderChaos(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 2))
				tr := informertest.New[*corev1.ConfigMap](informertest.Options{History: 50, NoStreaming: !streaming})
				for i := range 100 {
					tr.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%d", i)}})
				}
				var lists, watches int
				var cmu sync.Mutex
				lw := informer.Funcs[*corev1.ConfigMap]{
					ListFunc: func(ctx context.Context, o metav1.ListOptions) (informer.ListResult[*corev1.ConfigMap], error) {
						cmu.Lock()
						lists++
						cmu.Unlock()
						return tr.List(ctx, o)
					},
					WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
						cmu.Lock()
						watches++
						cmu.Unlock()
						return tr.Watch(ctx, o)
					},
				}
				inf := informer.New[*corev1.ConfigMap](lw, informer.Options[*corev1.ConfigMap]{
					Reflector: informer.ReflectorOptions{PageSize: 7},
				})
				m := &mirror{objs: map[informer.Key]string{}}
				inf.AddEventHandler(m, informer.HandlerOptions{ResyncPeriod: 3 * time.Second})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				if err := inf.WaitForSync(ctx); err != nil {
					t.Fatal(err)
				}
				next := 100
				for step := range 3000 {
					switch r := rng.IntN(100); {
					case r < 35:
						tr.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%d", next)}})
						next++
					case r < 70:
						if o, ok := tr.Get(informer.Key{Namespace: "ns", Name: fmt.Sprintf("cm-%d", rng.IntN(next))}); ok {
							o.Data = map[string]string{"step": fmt.Sprint(step)}
							tr.Update(o)
						}
					case r < 92:
						tr.Delete(informer.Key{Namespace: "ns", Name: fmt.Sprintf("cm-%d", rng.IntN(next))})
					case r < 95:
						tr.BreakWatches()
					case r < 97:
						tr.Compact()
					case r < 98:
						tr.Bookmark()
					default:
						time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond)
					}
					if step%50 == 0 {
						synctest.Wait()
					}
				}
				time.Sleep(time.Minute) // let backoffs expire and watches resume
				synctest.Wait()
				want := tr.Snapshot()
				got := map[informer.Key]string{}
				for _, o := range inf.Lister().List(nil) {
					got[informer.KeyOf(o)] = o.ResourceVersion
				}
				if !maps.Equal(got, want) {
					t.Errorf("cache (%d objects) differs from tracker (%d objects)", len(got), len(want))
				}
				m.mu.Lock()
				if !maps.Equal(m.objs, want) {
					t.Errorf("handler mirror (%d objects) differs from tracker (%d objects)", len(m.objs), len(want))
				}
				for _, e := range m.errs {
					t.Error(e)
				}
				m.mu.Unlock()
				cmu.Lock()
				t.Logf("%d list calls, %d watch calls", lists, watches)
				if watches < 50 || (!streaming && lists < 20) {
					t.Errorf("too little chaos: %d lists, %d watches", lists, watches)
				}
				cmu.Unlock()
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}
