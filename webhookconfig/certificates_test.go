package webhookconfig_test

import (
	"bytes"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhookconfig"
)

// newFake returns a client of an in-process fake API server; call it in
// the synctest bubble that uses it.
func newFake(t *testing.T) *client.Client {
	_, c := newFakeServer(t)
	return c
}

func newFakeServer(t *testing.T) (*fake.Server, *client.Client) {
	t.Helper()
	srv := fake.NewServer(fake.Options{})
	t.Cleanup(srv.Close)
	cfg := srv.InProcessConfig()
	cfg.MaxRetries = -1
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, client.New(rc, client.Options{})
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// verify checks that p's serving certificate verifies for name against
// p's bundle at now.
func verify(t *testing.T, p *webhookconfig.Certificates, name string) *x509.Certificate {
	t.Helper()
	cert, err := p.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	bundle, _ := p.Bundle()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		t.Fatal("the bundle holds no certificate")
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name, CurrentTime: time.Now()}); err != nil {
		t.Fatalf("at %s the serving certificate does not verify against the bundle: %v", time.Now(), err)
	}
	return cert.Leaf
}

func certOpts() webhookconfig.CertificatesOptions {
	return webhookconfig.CertificatesOptions{
		Namespace: "default", Service: "widgets-webhook",
		CAValidity: 120 * time.Hour, ServingValidity: 20 * time.Hour, Propagation: 10 * time.Hour,
		Resync: 30 * time.Minute, Logger: quiet(),
	}
}

// Two replicas starting at once on an absent Secret: one creates it, the
// other reads the winner's CA, and each one's certificate verifies
// against the other's bundle for every Service name.
func TestTwoReplicasAgreeOnOneCA(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		var (
			reps []*webhookconfig.Certificates
			logs syncBuffer
		)
		for range 2 {
			opts := certOpts()
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			p, err := webhookconfig.NewCertificates(c, opts)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, p)
			kubegotest.Start(t, p)
		}
		synctest.Wait()
		if n := strings.Count(logs.String(), "CA Secret created"); n != 1 {
			t.Fatalf("the CA Secret was created %d times, want once:\n%s", n, logs.String())
		}
		a, _ := reps[0].Bundle()
		b, _ := reps[1].Bundle()
		if len(a) == 0 || string(a) != string(b) {
			t.Fatalf("the replicas' bundles differ:\n%s\n%s", a, b)
		}
		for _, name := range reps[0].DNSNames() {
			verify(t, reps[0], name)
			verify(t, reps[1], name)
		}
		want := []string{"widgets-webhook", "widgets-webhook.default", "widgets-webhook.default.svc", "widgets-webhook.default.svc.cluster.local"}
		if got := reps[0].DNSNames(); !equal(got, want) {
			t.Fatalf("DNS names %v, want %v", got, want)
		}
		sec, err := client.Typed[*corev1.Secret](c).Namespace("default").Get(t.Context(), "widgets-webhook-webhook-ca", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sec.Type != corev1.SecretTypeTLS || string(sec.Data["ca.crt"]) != string(a) {
			t.Fatalf("Secret of type %s with ca.crt %q, want kubernetes.io/tls with the bundle", sec.Type, sec.Data["ca.crt"])
		}
	})
}

func bundleOf(p *webhookconfig.Certificates) string {
	b, _ := p.Bundle()
	return string(b)
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Over three CA lifetimes of fake time, two replicas keep a serving
// certificate that verifies against their bundle at every hour; the CA
// and the serving certificates are rotated several times, and each
// rotation of the bundle is announced on the Bundle channel.
func TestCertificatesRotateBeforeExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		var (
			reps []*webhookconfig.Certificates
			logs syncBuffer
		)
		for range 2 {
			opts := certOpts()
			opts.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			p, err := webhookconfig.NewCertificates(c, opts)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, p)
			kubegotest.Start(t, p)
		}
		synctest.Wait()
		_, changed := reps[0].Bundle()
		cas, leaves, announced := map[string]bool{}, map[string]bool{}, 0
		for range 3 * 120 {
			time.Sleep(time.Hour)
			synctest.Wait()
			select {
			case <-changed:
				announced++
				_, changed = reps[0].Bundle()
			default:
			}
			if a, b := bundleOf(reps[0]), bundleOf(reps[1]); a != b {
				t.Fatalf("at %s the replicas' bundles differ", time.Now())
			}
			for _, p := range reps {
				leaf := verify(t, p, "widgets-webhook.default.svc")
				leaves[leaf.SerialNumber.String()] = true
				cas[string(leaf.AuthorityKeyId)] = true
			}
		}
		if len(cas) < 3 || len(leaves) < 20 || announced < 4 {
			t.Fatalf("over 360h: %d signing CAs, %d serving certificates, %d bundle changes; want at least 3, 20 and 4", len(cas), len(leaves), announced)
		}
		// Both replicas see each rotation due at the same moment: one
		// writes it, the other's update conflicts and it reads the winner's.
		raced := strings.Count(logs.String(), "another writer changed the CA Secret first")
		updated := strings.Count(logs.String(), "CA Secret updated")
		if raced == 0 || updated < 2*(len(cas)-1) {
			t.Errorf("%d updates of the Secret and %d lost races; want at least %d updates (a next CA added, then promoted, per rotation) and some races", updated, raced, 2*(len(cas)-1))
		}
		t.Logf("over 360h: %d signing CAs, %d serving certificates, %d bundle changes, %d Secret updates, %d lost races", len(cas), len(leaves), announced, updated, raced)
	})
}

// A Secret of the name that Certificates did not make is left alone.
func TestForeignSecretIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "widgets-webhook-webhook-ca", Namespace: "default"}, StringData: map[string]string{"x": "y"}}
		if _, err := client.Typed[*corev1.Secret](c).Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p, err := webhookconfig.NewCertificates(c, certOpts())
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(t.Context()); !errors.Is(err, webhookconfig.ErrForeignSecret) {
			t.Fatalf("Start = %v, want ErrForeignSecret", err)
		}
		if _, err := p.GetCertificate(nil); !errors.Is(err, webhookconfig.ErrNoCertificate) {
			t.Fatalf("GetCertificate = %v, want ErrNoCertificate", err)
		}
	})
}

// A Secret whose CA expired while no replica ran is given a new CA.
func TestExpiredCAIsReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		p, err := webhookconfig.NewCertificates(c, certOpts())
		if err != nil {
			t.Fatal(err)
		}
		r := kubegotest.Start(t, p)
		synctest.Wait()
		first := verify(t, p, "widgets-webhook")
		if err := r.Stop(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Hour)
		q, err := webhookconfig.NewCertificates(c, certOpts())
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, q)
		synctest.Wait()
		if second := verify(t, q, "widgets-webhook"); string(second.AuthorityKeyId) == string(first.AuthorityKeyId) {
			t.Fatal("the expired CA still signs")
		}
	})
}

func TestCertificatesOptionsAreChecked(t *testing.T) {
	rc, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	for name, opts := range map[string]webhookconfig.CertificatesOptions{
		"no namespace":                  {Service: "s"},
		"no service nor secret":         {Namespace: "ns"},
		"no names":                      {Namespace: "ns", Secret: "s"},
		"serving longer than CA/6":      {Namespace: "ns", Service: "s", CAValidity: 60 * time.Hour, ServingValidity: 11 * time.Hour},
		"propagation not below CA/6":    {Namespace: "ns", Service: "s", CAValidity: 60 * time.Hour, ServingValidity: time.Hour, Propagation: 10 * time.Hour},
		"negative resync":               {Namespace: "ns", Service: "s", Resync: -1},
		"IPs only is fine, this is not": {Namespace: "ns", Secret: "s", CAValidity: -time.Hour, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}},
	} {
		if _, err := webhookconfig.NewCertificates(c, opts); !errors.Is(err, webhookconfig.ErrInvalidOptions) {
			t.Errorf("%s: err = %v, want ErrInvalidOptions", name, err)
		}
	}
	if _, err := webhookconfig.NewCertificates(c, webhookconfig.CertificatesOptions{Namespace: "ns", Secret: "s", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}); err != nil {
		t.Errorf("a Secret and IPs: %v", err)
	}
}

// Failing API calls are retried with backoff, and a Secret deleted while
// the replicas run is made again with a new CA, which the bundle then
// trusts.
func TestCertificatesRecoverFromFailuresAndADeletedSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newFakeServer(t)
		var logs syncBuffer
		opts := certOpts()
		opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		srv.FailNext(fake.Match{Verb: "get", Resource: "secrets"}, 3, metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError, Message: "injected"})
		p, err := webhookconfig.NewCertificates(c, opts)
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, p)
		synctest.Wait()
		if _, err := p.GetCertificate(nil); !errors.Is(err, webhookconfig.ErrNoCertificate) {
			t.Fatalf("GetCertificate while the API fails = %v, want ErrNoCertificate", err)
		}
		time.Sleep(time.Minute) // more than the backoff of three failures
		synctest.Wait()
		first := verify(t, p, "widgets-webhook")
		if n := strings.Count(logs.String(), "injected"); n != 3 {
			t.Fatalf("%d failures logged, want 3:\n%s", n, logs.String())
		}

		if err := client.Typed[*corev1.Secret](c).Namespace("default").Delete(t.Context(), "widgets-webhook-webhook-ca", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(opts.Resync)
		synctest.Wait()
		if second := verify(t, p, "widgets-webhook"); string(second.AuthorityKeyId) == string(first.AuthorityKeyId) {
			t.Fatal("the deleted Secret's CA still signs")
		}
	})
}
