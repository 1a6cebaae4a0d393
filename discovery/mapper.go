package discovery

import (
	"context"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/clock"
)

// DefaultMinRefreshInterval is how often, at most, a RESTMapper refreshes
// after misses when MapperOptions.MinRefreshInterval is zero.
const DefaultMinRefreshInterval = 5 * time.Second

// MapperOptions configure a RESTMapper.
type MapperOptions struct {
	// MinRefreshInterval is the least time between two refreshes caused by
	// misses (a miss inside it is answered from what is known). Zero means
	// DefaultMinRefreshInterval.
	MinRefreshInterval time.Duration
	// Clock tells the time. Nil means the discovery client's clock.
	Clock clock.Clock
}

// RESTMapper maps between kinds and resources of one server: GVK to GVR
// and scope, and partial resource names (plural, singular, short names,
// without group or version) to full ones. It reads a discovery Client's
// snapshot and, when a lookup misses, invalidates it and asks the server
// again, at most once per MinRefreshInterval, so resources installed after
// start (CRDs) are found. It is safe for concurrent use.
type RESTMapper struct {
	d        *Client
	minEvery time.Duration
	clock    clock.Clock

	mu          sync.Mutex
	idx         *index
	idxErr      error // discovery error of the snapshot behind idx
	lastRefresh time.Time
	refreshes   int
	refreshing  chan struct{} // closed when the running miss refresh ends
}

// NewRESTMapper returns a mapper over d. It discovers lazily, on the first
// lookup.
func NewRESTMapper(d *Client, opts MapperOptions) *RESTMapper {
	m := &RESTMapper{d: d, minEvery: opts.MinRefreshInterval, clock: opts.Clock}
	if m.minEvery <= 0 {
		m.minEvery = DefaultMinRefreshInterval
	}
	if m.clock == nil {
		m.clock = d.clock
	}
	return m
}

// index is the lookup structure built from one snapshot.
type index struct {
	byKind     map[schema.GroupVersionKind]Mapping
	byResource map[schema.GroupVersionResource]Mapping
	// versions of each group, preferred first.
	versions map[string][]string
	// names maps a lower-case plural, singular or short name to the
	// resources it names, in preference order (group order, then version).
	names map[string][]schema.GroupVersionResource
}

func buildIndex(s *Snapshot) *index {
	ix := &index{
		byKind:     map[schema.GroupVersionKind]Mapping{},
		byResource: map[schema.GroupVersionResource]Mapping{},
		versions:   map[string][]string{},
		names:      map[string][]schema.GroupVersionResource{},
	}
	add := func(name string, gvr schema.GroupVersionResource) {
		if name == "" {
			return
		}
		name = strings.ToLower(name)
		for _, x := range ix.names[name] {
			if x == gvr {
				return
			}
		}
		ix.names[name] = append(ix.names[name], gvr)
	}
	for _, g := range s.Groups {
		for _, v := range g.Versions {
			ix.versions[g.Name] = append(ix.versions[g.Name], v.Version)
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			for _, r := range v.Resources {
				gvr := gv.WithResource(r.Name)
				kind := r.Kind
				if kind.Version == "" {
					kind.Group, kind.Version = gv.Group, gv.Version
				}
				m := Mapping{Resource: gvr, Kind: kind, Namespaced: r.Namespaced}
				ix.byResource[gvr] = m
				// The first resource of a kind in a group/version wins (the
				// kind's own resource is listed before aliases).
				if _, dup := ix.byKind[kind]; !dup && kind.Kind != "" {
					ix.byKind[kind] = m
				}
				add(r.Name, gvr)
				add(r.SingularName, gvr)
				for _, sn := range r.ShortNames {
					add(sn, gvr)
				}
			}
		}
	}
	return ix
}

// current returns the index, building it from the discovery snapshot when
// there is none yet.
func (m *RESTMapper) current(ctx context.Context) (*index, error) {
	m.mu.Lock()
	ix := m.idx
	m.mu.Unlock()
	if ix != nil {
		return ix, nil
	}
	return m.refresh(ctx, false)
}

// refresh rebuilds the index from discovery; invalidate drops the
// discovery cache first. Concurrent refreshes share the discovery fetch
// (the discovery Client coalesces them); no lock is held while it runs.
func (m *RESTMapper) refresh(ctx context.Context, invalidate bool) (*index, error) {
	if invalidate {
		m.d.Invalidate()
	}
	s, err := m.d.Snapshot(ctx)
	if s == nil {
		return nil, err
	}
	ix := buildIndex(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idx, m.idxErr = ix, err
	m.lastRefresh = m.clock.Now()
	m.refreshes++
	return ix, nil
}

// lookup runs find on the index, refreshing once on a miss when the rate
// limit allows. A miss while another lookup refreshes waits for that
// refresh instead of starting one.
func (m *RESTMapper) lookup(ctx context.Context, what string, find func(*index) (Mapping, bool)) (Mapping, error) {
	ix, err := m.current(ctx)
	if err != nil {
		return Mapping{}, err
	}
	if mp, ok := find(ix); ok {
		return mp, nil
	}
	m.mu.Lock()
	wait := m.refreshing
	start := wait == nil && ix == m.idx && m.clock.Now().Sub(m.lastRefresh) >= m.minEvery
	var done chan struct{}
	if start {
		done = make(chan struct{})
		m.refreshing = done
	}
	m.mu.Unlock()
	switch {
	case start:
		_, rerr := m.refresh(ctx, true)
		m.mu.Lock()
		m.refreshing = nil
		if rerr != nil {
			// Count a failed refresh against the rate limit too.
			m.lastRefresh = m.clock.Now()
		}
		m.mu.Unlock()
		close(done)
		if rerr != nil {
			return Mapping{}, &NoMatchError{What: what, Cause: rerr}
		}
	case wait != nil:
		select {
		case <-wait:
		case <-ctx.Done():
			return Mapping{}, ctx.Err()
		}
	}
	m.mu.Lock()
	ix, cause := m.idx, m.idxErr
	m.mu.Unlock()
	if mp, ok := find(ix); ok {
		return mp, nil
	}
	return Mapping{}, &NoMatchError{What: what, Cause: cause}
}

// RESTMapping returns the mapping of kind gk in the first of versions the
// server serves it in, or, with no versions given, in the group's
// preferred version that has it. A miss is a *NoMatchError.
func (m *RESTMapper) RESTMapping(ctx context.Context, gk schema.GroupKind, versions ...string) (Mapping, error) {
	return m.lookup(ctx, gk.String(), func(ix *index) (Mapping, bool) {
		vs := versions
		if len(vs) == 0 {
			vs = ix.versions[gk.Group]
		}
		for _, v := range vs {
			if mp, ok := ix.byKind[gk.WithVersion(v)]; ok {
				return mp, true
			}
		}
		return Mapping{}, false
	})
}

// ResourceMapping returns the mapping of a fully named resource.
func (m *RESTMapper) ResourceMapping(ctx context.Context, gvr schema.GroupVersionResource) (Mapping, error) {
	return m.lookup(ctx, gvr.String(), func(ix *index) (Mapping, bool) {
		mp, ok := ix.byResource[gvr]
		return mp, ok
	})
}

// ResourceFor completes a partial resource: Resource may be a plural,
// singular or short name ("deploy"), or a "resource.group" such as
// "deployments.apps"; Group and Version may be empty. Among several
// matches the preferred group order and preferred version win.
func (m *RESTMapper) ResourceFor(ctx context.Context, partial schema.GroupVersionResource) (Mapping, error) {
	return m.lookup(ctx, partial.String(), func(ix *index) (Mapping, bool) {
		name := strings.ToLower(partial.Resource)
		group := partial.Group
		cands := ix.names[name]
		if len(cands) == 0 && group == "" {
			if n, g, ok := strings.Cut(name, "."); ok {
				name, group = n, g
				cands = ix.names[name]
			}
		}
		var best *Mapping
		bestRank := 0
		for _, gvr := range cands {
			if group != "" && gvr.Group != group {
				continue
			}
			if partial.Version != "" && gvr.Version != partial.Version {
				continue
			}
			rank := versionRank(ix.versions[gvr.Group], gvr.Version)
			if best == nil || (gvr.Group == best.Resource.Group && rank < bestRank) {
				mp := ix.byResource[gvr]
				best, bestRank = &mp, rank
			}
		}
		if best == nil {
			return Mapping{}, false
		}
		return *best, true
	})
}

// KindFor returns the kind served by a (possibly partial) resource.
func (m *RESTMapper) KindFor(ctx context.Context, partial schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	mp, err := m.ResourceFor(ctx, partial)
	return mp.Kind, err
}

// Refreshes returns how many times the mapper has built its index from
// discovery (the first build included).
func (m *RESTMapper) Refreshes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refreshes
}

func versionRank(versions []string, v string) int {
	for i, x := range versions {
		if x == v {
			return i
		}
	}
	return len(versions)
}
