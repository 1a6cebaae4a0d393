package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/kubeconfig"
)

// SecretLabel is the label that marks the kubeconfig Secrets a Secrets
// provider reads when its LabelSelector is empty (any value).
const SecretLabel = "kubego.io/kubeconfig"

// SecretKey is the data key of the kubeconfig in a Secret when
// Secrets.Key is empty.
const SecretKey = "kubeconfig"

// Secrets is a Provider of clusters described by kubeconfig Secrets in a
// hub cluster: each Secret the selector matches holds a kubeconfig under
// Key, whose current context is the cluster. A new Secret adds a cluster,
// a change of its kubeconfig replaces the cluster, and deleting the Secret
// (or removing its label) removes it. A Secret whose kubeconfig cannot be
// used is logged (Error) and skipped; if it held a cluster before, that
// cluster stays as it was until the Secret is fixed or deleted.
type Secrets struct {
	// Client reads the hub cluster (a Manager's Client()). Required.
	Client *client.Client
	// Namespace holds the Secrets; "" means every namespace.
	Namespace string
	// LabelSelector selects the Secrets; "" means SecretLabel.
	LabelSelector string
	// Key is the Secret data key of the kubeconfig; "" means SecretKey.
	Key string
	// Name names the cluster of a Secret; nil means the Secret's name
	// (make it include the namespace when watching several namespaces).
	Name func(*corev1.Secret) string
	// Kubeconfig builds each config (exec plugin template, logger,
	// AllowInsecureAuth); Overrides apply to every Secret.
	Kubeconfig kubeconfig.Options
	// AllowExecAndFiles lets a Secret's kubeconfig run exec credential
	// plugins and read local files (token file, client certificate and
	// key files, CA file). Off, such a kubeconfig is refused (logged, with
	// ErrNotSelfContained): whoever may write a labelled Secret in the hub
	// could otherwise run a command in this process, or have it send a
	// local credential, such as its service account token, to a server
	// of their choosing. Kubeconfigs with inline data only are always
	// accepted.
	AllowExecAndFiles bool
	// Informers configure the Secret watch (reflector backoff, clock).
	Informers informer.FactoryOptions
	// Logger receives the provider's records. Nil means warnings and
	// errors go to slog.Default().
	Logger *slog.Logger
}

// Run watches the Secrets and keeps set up to date until ctx is done; it
// returns nil then, after its watch has stopped. It returns an error
// wrapping ErrInvalid at once when Client is nil.
func (s Secrets) Run(ctx context.Context, set Set) error {
	if s.Client == nil {
		return fmt.Errorf("fleet: Secrets: %w: nil Client", ErrInvalid)
	}
	if s.LabelSelector == "" {
		s.LabelSelector = SecretLabel
	}
	if s.Key == "" {
		s.Key = SecretKey
	}
	if s.Name == nil {
		s.Name = func(sec *corev1.Secret) string { return sec.Name }
	}
	fo := s.Informers
	if fo.Logger == nil {
		fo.Logger = defaultlog.Or(s.Logger)
	}
	f := informer.NewFactory(s.Client, fo)
	inf, err := informer.Acquire[*corev1.Secret](f, informer.SharedOptions{Namespace: s.Namespace, LabelSelector: s.LabelSelector})
	if err != nil {
		return fmt.Errorf("fleet: Secrets: %w", err)
	}
	defer inf.Release()
	w := &secretWatch{s: s, set: set, log: defaultlog.Or(s.Logger), held: map[string][]byte{}}
	reg, err := inf.AddEventHandler(w, informer.HandlerOptions{})
	if err != nil {
		return fmt.Errorf("fleet: Secrets: %w", err)
	}
	defer reg.Remove()
	f.Start(ctx)
	<-ctx.Done()
	return f.Wait()
}

// secretWatch turns Secret events into changes of the set. Handlers run on
// one goroutine; mu guards held all the same, for clarity.
type secretWatch struct {
	s   Secrets
	set Set
	log *slog.Logger

	mu   sync.Mutex
	held map[string][]byte // cluster name → the kubeconfig it was built from
}

func (w *secretWatch) OnAdd(sec *corev1.Secret, _ bool) { w.apply(sec) }

func (w *secretWatch) OnUpdate(old, sec *corev1.Secret) {
	if on, nn := w.s.Name(old), w.s.Name(sec); on != nn {
		w.remove(on)
	}
	w.apply(sec)
}

func (w *secretWatch) OnDelete(sec *corev1.Secret, _ bool) { w.remove(w.s.Name(sec)) }

// apply adds or replaces the Secret's cluster when its kubeconfig is new.
func (w *secretWatch) apply(sec *corev1.Secret) {
	name := w.s.Name(sec)
	data := sec.Data[w.s.Key]
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, held := w.held[name]
	if held && bytes.Equal(prev, data) {
		return // a resync, or a change of something else
	}
	log := w.log.With("cluster", name, "secret", informer.KeyOf(sec).String())
	if name == "" {
		log.Error("kubeconfig Secret skipped: empty cluster name")
		return
	}
	cfg, err := secretConfig(sec, data, w.s.Kubeconfig, w.s.AllowExecAndFiles)
	if err != nil {
		log.Error("kubeconfig Secret skipped: unusable kubeconfig", "err", err)
		return
	}
	if held {
		_, err = w.set.ReplaceCluster(name, cfg.Config)
	} else {
		_, err = w.set.AddCluster(name, cfg.Config)
	}
	if err != nil {
		log.Error("kubeconfig Secret skipped: cluster not added", "err", err)
		return
	}
	w.held[name] = bytes.Clone(data)
	if held {
		log.Info("cluster replaced: its kubeconfig Secret changed")
	} else {
		log.Info("cluster added from its kubeconfig Secret")
	}
}

// remove removes the cluster of name if this provider added it.
func (w *secretWatch) remove(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.held[name]; !ok {
		return
	}
	delete(w.held, name)
	if err := w.set.RemoveCluster(name); err != nil {
		w.log.Warn("removing the cluster of a deleted kubeconfig Secret", "cluster", name, "err", err)
		return
	}
	w.log.Info("cluster removed: its kubeconfig Secret is gone", "cluster", name)
}

// secretConfig builds the config of the current context of the kubeconfig
// in data; unless allowLocal, a kubeconfig with an exec plugin or a file
// reference anywhere is refused.
func secretConfig(sec *corev1.Secret, data []byte, opts kubeconfig.Options, allowLocal bool) (*kubeconfig.ClientConfig, error) {
	if len(data) == 0 {
		return nil, errors.New("no data under the key")
	}
	f, err := kubeconfig.Parse(data, "secret "+informer.KeyOf(sec).String())
	if err != nil {
		return nil, err
	}
	if !allowLocal {
		if err := selfContained(f); err != nil {
			return nil, err
		}
	}
	return f.ClientConfig(opts)
}

// selfContained returns an error wrapping ErrNotSelfContained naming the
// first entry of f that runs a plugin or reads a file.
func selfContained(f *kubeconfig.File) error {
	for name, u := range f.Users {
		switch {
		case u == nil:
		case u.Exec != nil:
			return fmt.Errorf("%w: users[%s].exec", ErrNotSelfContained, name)
		case u.TokenFile != "":
			return fmt.Errorf("%w: users[%s].tokenFile", ErrNotSelfContained, name)
		case u.ClientCertificate != "":
			return fmt.Errorf("%w: users[%s].client-certificate", ErrNotSelfContained, name)
		case u.ClientKey != "":
			return fmt.Errorf("%w: users[%s].client-key", ErrNotSelfContained, name)
		}
	}
	for name, c := range f.Clusters {
		if c != nil && c.CertificateAuthority != "" {
			return fmt.Errorf("%w: clusters[%s].certificate-authority", ErrNotSelfContained, name)
		}
	}
	return nil
}
