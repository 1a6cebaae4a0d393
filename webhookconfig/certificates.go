package webhookconfig

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
)

// Defaults of CertificatesOptions.
const (
	DefaultCAValidity      = 365 * 24 * time.Hour
	DefaultServingValidity = 30 * 24 * time.Hour
	DefaultResync          = time.Minute
	DefaultClusterDomain   = "cluster.local"
)

// CertificatesOptions configure Certificates. Namespace and Service (or
// Secret with DNSNames or IPs) are required; every other zero value picks
// the documented default.
type CertificatesOptions struct {
	// Namespace holds the CA Secret, and the Service.
	Namespace string
	// Service is the name of the Service in front of the webhook server:
	// the serving certificate is valid for service, service.namespace,
	// service.namespace.svc and service.namespace.svc.<ClusterDomain>.
	Service string
	// Secret names the CA Secret; empty means Service + "-webhook-ca".
	Secret string
	// ClusterDomain is the cluster's DNS domain; empty means
	// DefaultClusterDomain.
	ClusterDomain string
	// DNSNames and IPs are more names the serving certificate is valid
	// for: 127.0.0.1 for a server that kube-apiserver reaches by URL on
	// loopback (tests).
	DNSNames []string
	IPs      []net.IP

	// CAValidity is how long each CA is valid; zero means
	// DefaultCAValidity. The CA is rotated before it expires: with V/3
	// left a next CA joins the bundle, with V/6 left (and Propagation
	// after it joined) it starts signing, and the previous one leaves the
	// bundle when it expires.
	CAValidity time.Duration
	// Propagation is how long a next CA is trusted (in the bundle) before
	// it signs: time for the BundleUpdater to patch the configurations and
	// for kube-apiserver to load them. Zero means CAValidity/12; it must
	// be below CAValidity/6.
	Propagation time.Duration
	// ServingValidity is how long each serving certificate is valid; zero
	// means DefaultServingValidity. A replica issues itself a new one when
	// two thirds of it passed, and at once when the signing CA changed.
	// It must be at most a sixth of CAValidity (so that no certificate
	// outlives the CA that signed it).
	ServingValidity time.Duration
	// Resync is how often the Secret is read again, to see what other
	// replicas changed; zero means DefaultResync. It should be well below
	// Propagation, the time a next CA is trusted before it signs.
	Resync time.Duration

	// Clock dates certificates and schedules rotations; nil is the wall
	// clock.
	Clock clock.Clock
	// Logger receives rotations (Info) and failures (Warn); nil sends
	// warnings to slog.Default() (internal/defaultlog).
	Logger *slog.Logger
}

// Certificates provisions a webhook server's serving certificate in a
// cluster, without cert-manager. Its CA is kept in a Secret (created when
// absent; every replica reads the one that won the creation, so all of
// them are signed by one CA); each replica signs itself a serving
// certificate for the Service's DNS names, in memory, and renews it before
// it expires. The CA is rotated with an overlap: a new CA is trusted (in
// the bundle) well before it signs, and the old one stays trusted until
// it expires. All changes to the Secret are conditional updates, so
// replicas racing to rotate agree on one outcome.
//
// Give GetCertificate to webhook.Options.GetCertificate; give the
// Certificates to a BundleUpdater so that the webhook configurations
// trust Bundle. Start runs it (a manager.Runnable that every replica runs:
// NeedLeaderElection is false). Its methods are safe for concurrent use.
type Certificates struct {
	c     *client.Resource[*corev1.Secret]
	opts  CertificatesOptions
	names []string
	sched schedule
	clock clock.Clock
	log   *slog.Logger

	started atomic.Bool

	mu      sync.Mutex
	serving *tls.Certificate
	issued  time.Time // when serving was issued
	issuer  *x509.Certificate
	bundle  []byte
	changed chan struct{} // closed and replaced when bundle changes
}

// NewCertificates checks the options; nothing is read or written before
// Start.
func NewCertificates(c *client.Client, opts CertificatesOptions) (*Certificates, error) {
	if c == nil || opts.Namespace == "" {
		return nil, fmt.Errorf("%w: a client and a Namespace are required", ErrInvalidOptions)
	}
	if opts.Secret == "" {
		if opts.Service == "" {
			return nil, fmt.Errorf("%w: Service or Secret is required", ErrInvalidOptions)
		}
		opts.Secret = opts.Service + "-webhook-ca"
	}
	if opts.ClusterDomain == "" {
		opts.ClusterDomain = DefaultClusterDomain
	}
	if opts.CAValidity == 0 {
		opts.CAValidity = DefaultCAValidity
	}
	if opts.ServingValidity == 0 {
		opts.ServingValidity = DefaultServingValidity
	}
	if opts.Resync == 0 {
		opts.Resync = DefaultResync
	}
	if opts.Propagation == 0 {
		opts.Propagation = opts.CAValidity / 12
	}
	if opts.CAValidity < 0 || opts.ServingValidity < 0 || opts.Resync < 0 || opts.Propagation < 0 {
		return nil, fmt.Errorf("%w: negative CAValidity, ServingValidity, Propagation or Resync", ErrInvalidOptions)
	}
	if opts.Propagation >= opts.CAValidity/6 {
		return nil, fmt.Errorf("%w: Propagation %s is not below a sixth of CAValidity %s", ErrInvalidOptions, opts.Propagation, opts.CAValidity)
	}
	if opts.ServingValidity > opts.CAValidity/6 {
		return nil, fmt.Errorf("%w: ServingValidity %s is over a sixth of CAValidity %s", ErrInvalidOptions, opts.ServingValidity, opts.CAValidity)
	}
	var names []string
	if s := opts.Service; s != "" {
		ns := opts.Namespace
		names = append(names, s, s+"."+ns, s+"."+ns+".svc", s+"."+ns+".svc."+opts.ClusterDomain)
	}
	names = append(names, opts.DNSNames...)
	if len(names) == 0 && len(opts.IPs) == 0 {
		return nil, fmt.Errorf("%w: the serving certificate needs a Service, DNSNames or IPs", ErrInvalidOptions)
	}
	return &Certificates{
		c:       client.Typed[*corev1.Secret](c).Namespace(opts.Namespace),
		opts:    opts,
		names:   names,
		sched:   schedule{validity: opts.CAValidity, propagation: opts.Propagation},
		clock:   clock.Or(opts.Clock),
		log:     defaultlog.Or(opts.Logger),
		changed: make(chan struct{}),
	}, nil
}

// DNSNames are the names the serving certificate is valid for.
func (p *Certificates) DNSNames() []string { return slices.Clone(p.names) }

// NeedLeaderElection reports false: every replica serves, so every replica
// needs its certificate.
func (p *Certificates) NeedLeaderElection() bool { return false }

// GetCertificate returns the current serving certificate (its Leaf set);
// its signature is that of tls.Config.GetCertificate and
// webhook.Options.GetCertificate. Before Start provisioned the first one
// it returns ErrNoCertificate.
func (p *Certificates) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.serving == nil {
		return nil, ErrNoCertificate
	}
	return p.serving, nil
}

// Bundle returns the PEM of every CA the webhook configurations must
// trust now (nil before Start read the Secret), and a channel closed when
// it changes. When the first bundle is announced, GetCertificate has a
// certificate. The returned bytes must not be modified.
func (p *Certificates) Bundle() ([]byte, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bundle, p.changed
}

// Start keeps the CA Secret and this replica's serving certificate up to
// date until ctx ends, then returns nil. API errors are logged and
// retried with backoff; it returns an error only for a Secret it must not
// change (ErrForeignSecret) or a second Start (ErrAlreadyStarted).
func (p *Certificates) Start(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	retry := backoff.Backoff{Initial: time.Second / 2, Max: p.opts.Resync, Factor: 2, Jitter: 0.2}
	failures, raced := 0, 0
	for {
		wait, err := p.sync(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, ErrForeignSecret):
			return err
		case errors.Is(err, errRaced):
			// Read again at once, then with backoff should it repeat.
			if raced > 0 {
				wait = retry.Jittered(retry.Delay(raced))
			}
			raced++
			p.log.Debug("webhookconfig: another writer changed the CA Secret first; reading it again", "secret", p.opts.Namespace+"/"+p.opts.Secret)
		case err != nil:
			p.log.Warn("webhookconfig: provisioning the serving certificate failed; retrying", "secret", p.opts.Namespace+"/"+p.opts.Secret, "err", err)
			failures++
			wait = retry.Jittered(retry.Delay(failures))
		default:
			failures, raced = 0, 0
		}
		if err := clock.Sleep(ctx, p.clock, wait); err != nil {
			return nil
		}
	}
}

// errRaced is returned by sync when another writer changed the Secret
// between its read and its update.
var errRaced = errors.New("the CA Secret changed since it was read")

// sync brings the Secret and the serving certificate up to date once and
// returns how long to wait before the next sync.
func (p *Certificates) sync(ctx context.Context) (time.Duration, error) {
	sec, err := p.secret(ctx)
	if err != nil {
		return 0, err
	}
	now := p.clock.Now()
	state := decodeState(sec.Data, p.clock)
	next, reason, err := p.sched.plan(state, now, p.newCA)
	if err != nil {
		return 0, err
	}
	if reason != "" {
		data, err := next.encode()
		if err != nil {
			return 0, err
		}
		sec = sec.DeepCopy()
		sec.Data = data
		if _, err := p.c.Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return 0, errRaced // another replica wrote first: read its outcome
			}
			return 0, fmt.Errorf("updating Secret %s/%s: %w", p.opts.Namespace, p.opts.Secret, err)
		}
		p.log.Info("webhookconfig: CA Secret updated", "secret", p.opts.Namespace+"/"+p.opts.Secret, "reason", reason)
		state = next
	}
	// The certificate first: a reader woken by the bundle's change finds
	// both.
	if err := p.ensureServing(state.active, now); err != nil {
		return 0, err
	}
	p.setBundle(state.bundle())
	wake := p.sched.wake(state, now)
	p.mu.Lock()
	renew := p.renewAt()
	p.mu.Unlock()
	if wake.IsZero() || renew.Before(wake) {
		wake = renew
	}
	wait := wake.Sub(now)
	return min(max(wait, 0), p.opts.Resync), nil
}

// secret gets the CA Secret, creating it (with a new CA) when absent.
func (p *Certificates) secret(ctx context.Context) (*corev1.Secret, error) {
	for range 3 {
		sec, err := p.c.Get(ctx, p.opts.Secret, metav1.GetOptions{})
		if err == nil {
			if sec.Labels[ManagedLabel] != "true" {
				return nil, fmt.Errorf("%w: Secret %s/%s lacks the label %s=true", ErrForeignSecret, p.opts.Namespace, p.opts.Secret, ManagedLabel)
			}
			return sec, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", p.opts.Namespace, p.opts.Secret, err)
		}
		ca, err := p.newCA()
		if err != nil {
			return nil, err
		}
		state := caState{active: ca, trusted: []*x509.Certificate{ca.Cert}}
		data, err := state.encode()
		if err != nil {
			return nil, err
		}
		sec = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: p.opts.Secret, Namespace: p.opts.Namespace, Labels: map[string]string{ManagedLabel: "true"}},
			Type:       corev1.SecretTypeTLS,
			Data:       data,
		}
		created, err := p.c.Create(ctx, sec, metav1.CreateOptions{})
		switch {
		case err == nil:
			p.log.Info("webhookconfig: CA Secret created", "secret", p.opts.Namespace+"/"+p.opts.Secret)
			return created, nil
		case apierrors.IsAlreadyExists(err):
			continue // another replica created it first: use its CA
		default:
			return nil, fmt.Errorf("creating Secret %s/%s: %w", p.opts.Namespace, p.opts.Secret, err)
		}
	}
	return nil, errRaced // created and deleted again by others, over and over
}

func (p *Certificates) newCA() (*certs.CA, error) {
	return certs.NewCA(certs.CAOptions{CommonName: "webhook CA " + p.opts.Namespace + "/" + p.opts.Secret, Validity: p.opts.CAValidity, Clock: p.clock})
}

func (p *Certificates) setBundle(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if bytes.Equal(b, p.bundle) {
		return
	}
	p.bundle = b
	close(p.changed)
	p.changed = make(chan struct{})
}

// renewAt is when the serving certificate is due for renewal: when two
// thirds of its life since issue passed. p.mu is held.
func (p *Certificates) renewAt() time.Time {
	if p.serving == nil {
		return time.Time{}
	}
	life := p.serving.Leaf.NotAfter.Sub(p.issued)
	return p.issued.Add(life * 2 / 3)
}

// ensureServing issues a serving certificate signed by ca when there is
// none, when it is due, or when ca is not its issuer.
func (p *Certificates) ensureServing(ca *certs.CA, now time.Time) error {
	p.mu.Lock()
	due := p.serving == nil || !now.Before(p.renewAt()) || !p.issuer.Equal(ca.Cert)
	p.mu.Unlock()
	if !due {
		return nil
	}
	validity := min(p.opts.ServingValidity, ca.Cert.NotAfter.Sub(now))
	pair, err := ca.Issue(certs.ServingOptions{DNSNames: p.names, IPs: p.opts.IPs, Validity: validity})
	if err != nil {
		return fmt.Errorf("issuing the serving certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return fmt.Errorf("parsing the serving certificate: %w", err)
		}
	}
	p.mu.Lock()
	p.serving, p.issued, p.issuer = &cert, now, ca.Cert
	p.mu.Unlock()
	p.log.Info("webhookconfig: serving certificate issued", "serial", cert.Leaf.SerialNumber.String(), "notAfter", cert.Leaf.NotAfter, "ca", ca.Cert.SerialNumber.String())
	return nil
}
