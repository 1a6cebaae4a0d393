package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/rest"
)

const (
	// AcceptAggregated asks /api and /apis for aggregated discovery,
	// accepting the legacy documents otherwise.
	AcceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	acceptLegacy     = "application/json"
	// maxParallel bounds concurrent per-group requests of legacy discovery.
	maxParallel = 8
)

// fetch discovers everything from the server. The error is a
// *PartialError when the snapshot is usable but incomplete.
func (c *Client) fetch(ctx context.Context) (*Snapshot, error) {
	snap := &Snapshot{Fetched: c.clock.Now()}
	failed := map[schema.GroupVersion]error{}

	var legacyGroups []metav1.APIGroup
	for _, root := range []string{"/api", "/apis"} {
		accept := AcceptAggregated
		if c.opts.DisableAggregated {
			accept = acceptLegacy
		}
		res := c.rest.Get().AbsPath(root).Accept(accept).Do(ctx)
		body, err := res.Raw()
		if err != nil {
			return nil, fmt.Errorf("discovery: GET %s: %w", root, err)
		}
		if isAggregated(res.ContentType()) {
			var list apidiscoveryv2.APIGroupDiscoveryList
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, &rest.DecodeError{ContentType: res.ContentType(), Err: err}
			}
			snap.Aggregated = true
			snap.Groups = append(snap.Groups, fromAggregated(list, failed)...)
			continue
		}
		if root == "/api" {
			var vs metav1.APIVersions
			if err := json.Unmarshal(body, &vs); err != nil {
				return nil, &rest.DecodeError{ContentType: res.ContentType(), Err: err}
			}
			g := metav1.APIGroup{Name: ""}
			for _, v := range vs.Versions {
				g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
			}
			if len(vs.Versions) > 0 {
				g.PreferredVersion = g.Versions[0]
			}
			legacyGroups = append(legacyGroups, g)
			continue
		}
		var gl metav1.APIGroupList
		if err := json.Unmarshal(body, &gl); err != nil {
			return nil, &rest.DecodeError{ContentType: res.ContentType(), Err: err}
		}
		legacyGroups = append(legacyGroups, gl.Groups...)
	}
	if len(legacyGroups) > 0 {
		snap.Groups = append(snap.Groups, c.fetchLegacy(ctx, legacyGroups, failed)...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(failed) > 0 {
		return snap, &PartialError{Failed: failed}
	}
	return snap, nil
}

func isAggregated(ct string) bool {
	mt, params, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json" && params["as"] == "APIGroupDiscoveryList" && params["g"] == "apidiscovery.k8s.io"
}

// fromAggregated converts an aggregated discovery document. Stale versions
// are recorded in failed and left out.
func fromAggregated(list apidiscoveryv2.APIGroupDiscoveryList, failed map[schema.GroupVersion]error) []Group {
	groups := make([]Group, 0, len(list.Items))
	for _, ag := range list.Items {
		g := Group{Name: ag.Name}
		for _, av := range ag.Versions {
			gv := schema.GroupVersion{Group: ag.Name, Version: av.Version}
			if av.Freshness == apidiscoveryv2.DiscoveryFreshnessStale {
				failed[gv] = ErrStale
				continue
			}
			v := Version{Version: av.Version}
			for _, ar := range av.Resources {
				r := Resource{
					Name:         ar.Resource,
					SingularName: ar.SingularResource,
					Kind:         gv.WithKind(""),
					Namespaced:   ar.Scope == apidiscoveryv2.ScopeNamespace,
					Verbs:        ar.Verbs,
					ShortNames:   ar.ShortNames,
					Categories:   ar.Categories,
				}
				if k := ar.ResponseKind; k != nil {
					r.Kind = schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
					if r.Kind.Version == "" {
						r.Kind.Group, r.Kind.Version = gv.Group, gv.Version
					}
				}
				for _, s := range ar.Subresources {
					r.Subresources = append(r.Subresources, s.Subresource)
				}
				v.Resources = append(v.Resources, r)
			}
			g.Versions = append(g.Versions, v)
		}
		if len(g.Versions) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// fetchLegacy asks each group/version for its resources, in parallel.
// Failures are recorded in failed; the group keeps its other versions.
func (c *Client) fetchLegacy(ctx context.Context, groups []metav1.APIGroup, failed map[schema.GroupVersion]error) []Group {
	type job struct {
		gi, vi int
		gv     schema.GroupVersion
	}
	out := make([]Group, len(groups))
	var jobs []job
	for gi, g := range groups {
		out[gi].Name = g.Name
		// Preferred version first, then the others in server order.
		versions := []string{}
		if g.PreferredVersion.Version != "" {
			versions = append(versions, g.PreferredVersion.Version)
		}
		for _, v := range g.Versions {
			if v.Version != g.PreferredVersion.Version {
				versions = append(versions, v.Version)
			}
		}
		out[gi].Versions = make([]Version, len(versions))
		for vi, v := range versions {
			out[gi].Versions[vi].Version = v
			jobs = append(jobs, job{gi, vi, schema.GroupVersion{Group: g.Name, Version: v}})
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, maxParallel)
	)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := c.fetchGroupVersion(ctx, j.gv)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[j.gv] = err
				return
			}
			out[j.gi].Versions[j.vi].Resources = res
		}()
	}
	wg.Wait()
	// Drop versions that failed, and groups left empty.
	groupsOut := out[:0]
	for _, g := range out {
		vs := g.Versions[:0]
		for _, v := range g.Versions {
			if _, bad := failed[schema.GroupVersion{Group: g.Name, Version: v.Version}]; !bad {
				vs = append(vs, v)
			}
		}
		g.Versions = vs
		if len(vs) > 0 {
			groupsOut = append(groupsOut, g)
		}
	}
	return groupsOut
}

func (c *Client) fetchGroupVersion(ctx context.Context, gv schema.GroupVersion) ([]Resource, error) {
	path := []string{"apis", gv.Group, gv.Version}
	if gv.Group == "" {
		path = []string{"api", gv.Version}
	}
	body, err := c.rest.Get().AbsPath(path...).Accept(acceptLegacy).DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, &rest.DecodeError{ContentType: acceptLegacy, Err: err}
	}
	var out []Resource
	index := map[string]int{}
	var subs [][2]string
	for _, ar := range list.APIResources {
		if parent, sub, ok := strings.Cut(ar.Name, "/"); ok {
			subs = append(subs, [2]string{parent, sub})
			continue
		}
		r := Resource{
			Name:         ar.Name,
			SingularName: ar.SingularName,
			Kind:         gv.WithKind(ar.Kind),
			Namespaced:   ar.Namespaced,
			Verbs:        ar.Verbs,
			ShortNames:   ar.ShortNames,
			Categories:   ar.Categories,
		}
		if ar.Group != "" || ar.Version != "" {
			r.Kind.Group, r.Kind.Version = ar.Group, ar.Version
		}
		if r.SingularName == "" {
			r.SingularName = strings.ToLower(ar.Kind)
		}
		index[ar.Name] = len(out)
		out = append(out, r)
	}
	for _, s := range subs {
		if i, ok := index[s[0]]; ok {
			out[i].Subresources = append(out[i].Subresources, s[1])
		}
	}
	return out, nil
}
