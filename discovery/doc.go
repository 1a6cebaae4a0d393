// Package discovery tells what a kube-apiserver serves: its version, its
// API groups, their versions and resources, and maps kinds to resources.
//
//	d := discovery.New(rc, discovery.Options{CacheDir: dir})
//	snap, err := d.Snapshot(ctx)
//	var partial *discovery.PartialError
//	if errors.As(err, &partial) {
//		// snap is usable; partial.Failed says which group/versions are missing
//	}
//
// Snapshot uses aggregated discovery (apidiscovery.k8s.io/v2: one request
// to /api and one to /apis) and falls back to legacy discovery (one request
// per group/version, in parallel) when the server does not offer it. A
// group/version that fails, or that the server marks stale, is left out and
// named in a *PartialError returned with the snapshot; the whole answer
// fails only when /api or /apis does.
//
// Snapshots are cached in memory and, with Options.CacheDir, on disk, for
// Options.TTL; Invalidate drops both. Concurrent callers that miss the cache
// share one fetch. A snapshot is shared and read-only.
//
// RESTMapper maps GroupKinds to resources and scope (RESTMapping), fully
// or partially named resources (plural, singular, short name,
// "resource.group") to kinds (ResourceFor, KindFor), choosing the group's
// preferred version. On a miss it invalidates the cache and asks again, at
// most once per MinRefreshInterval, so a CRD installed after start is
// found; a definite miss is a *NoMatchError. *RESTMapper satisfies
// client.Mapper.
package discovery
