package manager

import (
	"fmt"

	"github.com/kubego/kubego/informer"
)

// Reader returns a cache-backed reader of Go type T for reconcilers: Get
// by key, List by namespace and label selector, ByIndex by a named index,
// all from the informer the Manager's factory shares with the
// controllers' sources of the same type, waiting for its sync on the
// first reads (see informer.Reader). Make it at setup and keep it in the
// reconciler; a read is then one line:
//
//	d, err := r.deployments.Get(ctx, req.Key)
//
// A type's informer options (namespace, selectors, transform, indexers)
// are given once in a Manager: a Reader or a source asking for T with
// other options is refused with an *informer.OptionsConflictError (which
// names both option sets), instead of getting a second watch and cache.
// Indexes of other names are added to the one informer. Unless opts.Lazy,
// the informer starts with the Manager (at once if it runs), and /readyz
// waits for it; a lazy one starts on the first read. Only declared types
// are cached: no read starts a watch of a type by surprise.
//
// Reads see the cache, which lags behind writes. For a live read, one
// call away, use the client:
// client.Typed[T](mgr.Client()).Namespace(ns).Get(ctx, name, metav1.GetOptions{}).
// For unstructured or metadata-only readers use informer.NewResourceReader
// or informer.NewMetadataReader on Factory().
func Reader[T informer.Object](m *Manager, opts informer.ReaderOptions) (*informer.Reader[T], error) {
	r, err := informer.NewReader[T](m.factory, opts)
	if err != nil {
		return nil, fmt.Errorf("manager: Reader: %w", err)
	}
	if !opts.Lazy {
		m.mu.Lock()
		m.readers = append(m.readers, r)
		m.mu.Unlock()
	}
	return r, nil
}
