package fleet

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/kubeconfig"
)

// DefaultPollInterval is Kubeconfig.PollInterval when zero.
const DefaultPollInterval = 10 * time.Second

// Kubeconfig is a Provider of the contexts of one kubeconfig: one cluster
// per context, named after the context. Read from Path, the file is
// watched: Run reads it again every PollInterval and adds, replaces and
// removes clusters as contexts appear, change and disappear. Its zero
// value is not usable: set Path or File.
type Kubeconfig struct {
	// Path is the kubeconfig file to read when Run starts, and to watch.
	Path string
	// File, if set, is used instead of reading Path, and not watched.
	File *kubeconfig.File
	// Contexts chooses the contexts to add; empty means every context of
	// the file.
	Contexts []string
	// Options build each context's rest.Config (exec plugin template,
	// logger, AllowInsecureAuth); Overrides.Context is set to each context
	// in turn and the other overrides apply to all of them.
	Options kubeconfig.Options
	// PollInterval is how often Run reads Path again. Zero means
	// DefaultPollInterval; negative means Path is read once.
	PollInterval time.Duration
	// Clock times the polls; nil means the wall clock.
	Clock clock.Clock
	// Logger receives the provider's records (clusters added, replaced or
	// removed; a file or context that cannot be used). Nil means warnings
	// and errors go to slog.Default().
	Logger *slog.Logger
}

// Run adds one cluster per chosen context, in name order. It returns an
// *Error naming the context (wrapping the kubeconfig package's error,
// such as kubeconfig.ErrContextNotFound) when a context's config cannot
// be built, or the Set's error when a name is held already; the clusters
// added before stay in the Set.
//
// Then, when it read Path, Run reads the file again every PollInterval
// until ctx ends: a context that appeared (among the chosen ones, if
// Contexts is set) is added, one whose context, cluster or user entry
// changed is replaced, and one that disappeared is removed, in name order,
// removals last. A file that cannot be read or parsed, or a context whose
// config cannot be built, is logged (Error) and the clusters stay as they
// were until it is fixed; so does a cluster the Set refuses. Changes to
// files the kubeconfig only names (certificates, token files) are not
// noticed. Run returns nil when ctx ends.
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
	w := &fileWatch{k: k, set: set, log: defaultlog.Or(k.Logger), held: map[string][]byte{}, bad: map[string][]byte{}}
	if k.Path != "" && k.File == nil {
		w.log = w.log.With("kubeconfig", k.Path)
	}
	for _, name := range k.chosen(f) {
		cc, err := k.clientConfig(f, name)
		if err != nil {
			return fmt.Errorf("fleet: Kubeconfig: %w", &Error{Cluster: name, Err: err})
		}
		if _, err := set.AddCluster(name, cc.Config); err != nil {
			return fmt.Errorf("fleet: Kubeconfig: %w", err)
		}
		w.held[name] = fingerprint(f, name)
	}
	if k.File != nil || k.PollInterval < 0 {
		<-ctx.Done()
		return nil
	}
	interval := k.PollInterval
	if interval == 0 {
		interval = DefaultPollInterval
	}
	c := clock.Or(k.Clock)
	for clock.Sleep(ctx, c, interval) == nil {
		w.poll()
	}
	return nil
}

// chosen returns the contexts to hold: Contexts, or every context of f in
// name order.
func (k Kubeconfig) chosen(f *kubeconfig.File) []string {
	if len(k.Contexts) > 0 {
		return k.Contexts
	}
	return slices.Sorted(maps.Keys(f.Contexts))
}

// clientConfig builds the config of context name of f.
func (k Kubeconfig) clientConfig(f *kubeconfig.File, name string) (*kubeconfig.ClientConfig, error) {
	opts := k.Options
	opts.Overrides.Context = name
	return f.ClientConfig(opts)
}

// fingerprint returns the encoding of what context name of f is made of:
// the context, its cluster and its user. Two equal fingerprints build
// equal configs.
func fingerprint(f *kubeconfig.File, name string) []byte {
	c := f.Contexts[name]
	if c == nil {
		return nil
	}
	one := &kubeconfig.File{Clusters: map[string]*kubeconfig.Cluster{}, Users: map[string]*kubeconfig.User{},
		Contexts: map[string]*kubeconfig.Context{name: c}}
	if cl := f.Clusters[c.Cluster]; cl != nil {
		one.Clusters[c.Cluster] = cl
	}
	if u := f.Users[c.User]; u != nil {
		one.Users[c.User] = u
	}
	b, err := kubeconfig.Marshal(one)
	if err != nil {
		return nil
	}
	return b
}

// fileWatch keeps a Set up to date with a kubeconfig file. It is used by
// Run's goroutine only.
type fileWatch struct {
	k       Kubeconfig
	set     Set
	log     *slog.Logger
	held    map[string][]byte // cluster name → the fingerprint it was built from
	bad     map[string][]byte // context name → the fingerprint already logged as unusable
	readErr string            // the read error already logged
}

// poll reads the file again and applies its changes.
func (w *fileWatch) poll() {
	f, err := kubeconfig.ReadFile(w.k.Path)
	if err != nil {
		if err.Error() != w.readErr {
			w.readErr = err.Error()
			w.log.Error("kubeconfig unreadable: clusters kept as they are", "err", err)
		}
		return
	}
	w.readErr = ""
	keep := map[string]bool{}
	for _, name := range w.k.chosen(f) {
		if f.Contexts[name] == nil {
			continue
		}
		keep[name] = true
		fp := fingerprint(f, name)
		prev, held := w.held[name]
		if held && bytes.Equal(prev, fp) {
			continue
		}
		log := w.log.With("cluster", name)
		cc, err := w.k.clientConfig(f, name)
		if err != nil {
			if !bytes.Equal(w.bad[name], fp) {
				w.bad[name] = fp
				log.Error("kubeconfig context skipped: its config cannot be built", "err", err)
			}
			continue
		}
		delete(w.bad, name)
		if held {
			_, err = w.set.ReplaceCluster(name, cc.Config)
		} else {
			_, err = w.set.AddCluster(name, cc.Config)
		}
		if err != nil {
			log.Error("kubeconfig context skipped: cluster not added", "err", err)
			continue
		}
		w.held[name] = fp
		if held {
			log.Info("cluster replaced: its kubeconfig context changed")
		} else {
			log.Info("cluster added: a new kubeconfig context")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.held)) {
		if keep[name] {
			continue
		}
		delete(w.held, name)
		if err := w.set.RemoveCluster(name); err != nil {
			w.log.Warn("removing the cluster of a removed kubeconfig context", "cluster", name, "err", err)
			continue
		}
		w.log.Info("cluster removed: its kubeconfig context is gone", "cluster", name)
	}
	for name := range w.bad {
		if !keep[name] {
			delete(w.bad, name)
		}
	}
}
