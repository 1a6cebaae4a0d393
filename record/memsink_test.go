package record

import (
	"context"
	"slices"
	"strings"
	"sync"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var eventsResource = schema.GroupResource{Group: "events.k8s.io", Resource: "events"}

// memSink stores Events in memory, optionally failing or blocking calls.
type memSink struct {
	mu      sync.Mutex
	events  map[string]*eventsv1.Event // by namespace/name
	creates int
	updates int
	// fail, when set, decides the error of each call ("create" or "update").
	fail func(op string) error
	// gate, when set, makes every call wait until it is closed or ctx ends.
	gate chan struct{}
	// inflight counts the calls under way; maxInflight is its highest value.
	inflight, maxInflight int
}

func newMemSink() *memSink { return &memSink{events: map[string]*eventsv1.Event{}} }

func (m *memSink) before(ctx context.Context, op string) error {
	m.mu.Lock()
	gate, fail := m.gate, m.fail
	m.inflight++
	m.maxInflight = max(m.maxInflight, m.inflight)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inflight--
		m.mu.Unlock()
	}()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if fail != nil {
		return fail(op)
	}
	return nil
}

func (m *memSink) Create(ctx context.Context, ev *eventsv1.Event) error {
	if err := m.before(ctx, "create"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := ev.Namespace + "/" + ev.Name
	if _, ok := m.events[k]; ok {
		return apierrors.NewAlreadyExists(eventsResource, ev.Name)
	}
	m.creates++
	m.events[k] = ev.DeepCopy()
	return nil
}

func (m *memSink) UpdateSeries(ctx context.Context, namespace, name string, series eventsv1.EventSeries) error {
	if err := m.before(ctx, "update"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ev, ok := m.events[namespace+"/"+name]
	if !ok {
		return apierrors.NewNotFound(eventsResource, name)
	}
	m.updates++
	ev.Series = series.DeepCopy()
	return nil
}

// list returns the stored Events sorted by name.
func (m *memSink) list() []*eventsv1.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*eventsv1.Event
	for _, ev := range m.events {
		out = append(out, ev.DeepCopy())
	}
	slices.SortFunc(out, func(a, b *eventsv1.Event) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (m *memSink) deleteAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.events)
}

func (m *memSink) counts() (creates, updates int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.creates, m.updates
}

// count returns the series count of ev (1 without a series).
func count(ev *eventsv1.Event) int32 {
	if ev.Series == nil {
		return 1
	}
	return ev.Series.Count
}
