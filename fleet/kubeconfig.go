package fleet

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubego/kubego/kubeconfig"
)

// Kubeconfig is a Provider of the contexts of one kubeconfig: one cluster
// per context, named after the context. Its zero value is not usable: set
// Path or File.
type Kubeconfig struct {
	// Path is the kubeconfig file to read when Run starts.
	Path string
	// File, if set, is used instead of reading Path.
	File *kubeconfig.File
	// Contexts chooses the contexts to add; empty means every context of
	// the file.
	Contexts []string
	// Options build each context's rest.Config (exec plugin template,
	// logger, AllowInsecureAuth); Overrides.Context is set to each context
	// in turn and the other overrides apply to all of them.
	Options kubeconfig.Options
}

// Run adds one cluster per chosen context, in name order, then waits for
// ctx to end. It returns an *Error naming the context (wrapping the
// kubeconfig package's error, such as kubeconfig.ErrContextNotFound) when
// a context's config cannot be built, or the Set's error when a name is
// held already; the clusters added before stay in the Set.
func (k Kubeconfig) Run(ctx context.Context, set Set) error {
	f := k.File
	if f == nil {
		if k.Path == "" {
			return fmt.Errorf("fleet: Kubeconfig: %w: no Path or File", ErrInvalid)
		}
		var err error
		if f, err = kubeconfig.ReadFile(k.Path); err != nil {
			return fmt.Errorf("fleet: Kubeconfig: %w", err)
		}
	}
	names := k.Contexts
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(f.Contexts))
	}
	for _, name := range names {
		opts := k.Options
		opts.Overrides.Context = name
		cc, err := f.ClientConfig(opts)
		if err != nil {
			return fmt.Errorf("fleet: Kubeconfig: %w", &Error{Cluster: name, Err: err})
		}
		if _, err := set.AddCluster(name, cc.Config); err != nil {
			return fmt.Errorf("fleet: Kubeconfig: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}
