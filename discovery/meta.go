package discovery

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Meta returns m as an apimachinery meta.RESTMapper, for libraries that
// take one. meta.RESTMapper's methods have no context: each lookup runs
// with ctx, which should live as long as whatever holds the mapper.
//
// It answers as m does (a miss refreshes discovery, at most once per
// MinRefreshInterval), with these differences from a mapper that holds
// every match: KindsFor, ResourcesFor and RESTMappings return the one
// preferred match (by group priority, then version priority) rather than
// every candidate; ResourceSingularizer returns the resource's singular
// name as discovery gives it, else its kind in lower case. A miss is a
// *meta.NoResourceMatchError or *meta.NoKindMatchError, so
// meta.IsNoMatchError recognises it; other errors (discovery failing,
// ctx ended) are returned as they are.
func (m *RESTMapper) Meta(ctx context.Context) meta.RESTMapper { return metaMapper{m: m, ctx: ctx} }

type metaMapper struct {
	m   *RESTMapper
	ctx context.Context
}

var _ meta.RESTMapper = metaMapper{}

func (a metaMapper) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	k, err := a.m.KindFor(a.ctx, r)
	if errors.Is(err, ErrNoMatch) {
		return schema.GroupVersionKind{}, &meta.NoResourceMatchError{PartialResource: r}
	}
	return k, err
}

func (a metaMapper) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	k, err := a.KindFor(r)
	if err != nil {
		return nil, err
	}
	return []schema.GroupVersionKind{k}, nil
}

func (a metaMapper) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	mp, err := a.m.ResourceFor(a.ctx, r)
	if errors.Is(err, ErrNoMatch) {
		return schema.GroupVersionResource{}, &meta.NoResourceMatchError{PartialResource: r}
	}
	return mp.Resource, err
}

func (a metaMapper) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	res, err := a.ResourceFor(r)
	if err != nil {
		return nil, err
	}
	return []schema.GroupVersionResource{res}, nil
}

func (a metaMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mp, err := a.m.RESTMapping(a.ctx, gk, versions...)
	if errors.Is(err, ErrNoMatch) {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	if err != nil {
		return nil, err
	}
	scope := meta.RESTScopeRoot
	if mp.Namespaced {
		scope = meta.RESTScopeNamespace
	}
	return &meta.RESTMapping{Resource: mp.Resource, GroupVersionKind: mp.Kind, Scope: scope}, nil
}

func (a metaMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	mp, err := a.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	return []*meta.RESTMapping{mp}, nil
}

func (a metaMapper) ResourceSingularizer(resource string) (string, error) {
	partial := schema.GroupVersionResource{Resource: resource}
	mp, err := a.m.ResourceFor(a.ctx, partial)
	if errors.Is(err, ErrNoMatch) {
		return "", &meta.NoResourceMatchError{PartialResource: partial}
	}
	if err != nil {
		return "", err
	}
	snap, err := a.m.d.Snapshot(a.ctx)
	if err == nil {
		for _, r := range snap.Resources(mp.Resource.GroupVersion()) {
			if r.Name == mp.Resource.Resource && r.SingularName != "" {
				return r.SingularName, nil
			}
		}
	}
	return strings.ToLower(mp.Kind.Kind), nil
}
