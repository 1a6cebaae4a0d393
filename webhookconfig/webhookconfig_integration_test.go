package webhookconfig_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhookconfig"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// countingMux mounts handlers on a server, counting the requests of each
// path.
type countingMux struct {
	srv   *webhook.Server
	mu    sync.Mutex
	calls map[string]*atomic.Int64
}

func (m *countingMux) Handle(path string, h http.Handler) {
	n := new(atomic.Int64)
	m.mu.Lock()
	m.calls[path] = n
	m.mu.Unlock()
	m.srv.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
}

func (m *countingMux) called(path string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[path].Load()
}

// handshakes records the issuer of each certificate the server presents.
type handshakes struct {
	mu      sync.Mutex
	issuers map[string]int // authority key id → handshakes
}

func (h *handshakes) wrap(get func(*tls.ClientHelloInfo) (*tls.Certificate, error)) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		c, err := get(hello)
		if err == nil && hello != nil {
			h.mu.Lock()
			h.issuers[string(c.Leaf.AuthorityKeyId)]++
			h.mu.Unlock()
		}
		return c, err
	}
}

// counts returns the handshakes per CA, in the order of the CAs' key ids.
func (h *handshakes) counts() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := slices.Sorted(maps.Keys(h.issuers))
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = h.issuers[id]
	}
	return out
}

func (h *handshakes) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.issuers)
}

// past is a clock standing a fixed offset in the past.
type past struct{ by time.Duration }

func (p past) Now() time.Time                                  { return time.Now().Add(-p.by) }
func (p past) AfterFunc(d time.Duration, f func()) clock.Timer { return time.AfterFunc(d, f) }

// kube-apiserver calls a mutating and a validating webhook over TLS, with
// a certificate the server provisioned itself from a CA kept in a Secret,
// while the serving certificate and the CA are rotated several times (the
// caBundle of the configurations kept by a BundleUpdater): no admission
// fails. A second replica on the same Secret agrees on every CA.
func TestIntegrationSelfProvisionedCertificatesUnderRotation(t *testing.T) {
	const (
		caValidity  = 2 * time.Minute
		propagation = 15 * time.Second
		serving     = 20 * time.Second
	)
	cp := testenv.Shared(t)
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	cli := client.New(rc, client.Options{})
	ctx := t.Context()
	log := kubegotest.Logger(t, nil)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webhookconfig-", Labels: map[string]string{"webhookconfig-test": "rotation"}}}
	if ns, err = client.Typed[*corev1.Namespace](cli).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](cli).Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})

	// A CA Secret left by an earlier run, its CA 40s from expiry: the
	// first rotation starts at once.
	old, err := certs.NewCA(certs.CAOptions{Validity: caValidity, Clock: past{caValidity - 40*time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	pair, _ := old.Pair()
	seed := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "webhook-ca", Namespace: ns.Name, Labels: map[string]string{webhookconfig.ManagedLabel: "true"}},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: pair.CertPEM, corev1.TLSPrivateKeyKey: pair.KeyPEM, "ca.crt": pair.CertPEM},
	}
	if _, err := client.Typed[*corev1.Secret](cli).Create(ctx, seed, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	opts := webhookconfig.CertificatesOptions{
		Namespace: ns.Name, Secret: "webhook-ca", IPs: []net.IP{net.IPv4(127, 0, 0, 1)},
		CAValidity: caValidity, Propagation: propagation, ServingValidity: serving, Resync: time.Second,
		Logger: log,
	}
	provisioner, err := webhookconfig.NewCertificates(cli, opts)
	if err != nil {
		t.Fatal(err)
	}
	replica, err := webhookconfig.NewCertificates(cli, opts)
	if err != nil {
		t.Fatal(err)
	}

	shakes := &handshakes{issuers: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := webhook.New(webhook.Options{Listener: ln, GetCertificate: shakes.wrap(provisioner.GetCertificate), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := &countingMux{srv: srv, calls: map[string]*atomic.Int64{}}
	set := webhookconfig.NewSet("webhookconfig-rotation", mux)
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"webhookconfig-test": "rotation"}}
	webhookconfig.Default[corev1.ConfigMap](set, "/default", admission.DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, cm *corev1.ConfigMap) error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["defaulted"] = "true"
		return nil
	}), webhookconfig.Admission{NamespaceSelector: selector})
	webhookconfig.Validate[corev1.ConfigMap](set, "/validate", admission.ValidatorFuncs[*corev1.ConfigMap]{
		Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			if cm.Data["verdict"] == "deny" {
				return nil, errors.New("denied by the validating webhook")
			}
			return nil, nil
		},
	}, webhookconfig.Admission{NamespaceSelector: selector})

	for _, r := range []kubegotest.Starter{provisioner, replica, srv} {
		kubegotest.Start(t, r)
	}
	<-srv.Serving()
	url := "https://" + srv.Addr().String()

	// Registered once: the configurations point at the server's URL
	// (kube-apiserver here reaches no Service), with no caBundle yet: the
	// BundleUpdater fills it in.
	cfgs, err := set.Configurations(ctx, cli, webhookconfig.Target{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.InstallWebhookConfigurations(ctx, cfgs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.UninstallWebhooks(context.Background(), set.Name()); err != nil {
			t.Error(err)
		}
	})
	updater, err := webhookconfig.NewBundleUpdater(cli, provisioner, webhookconfig.BundleOptions{
		Mutating: []string{set.Name()}, Validating: []string{set.Name()}, Resync: 5 * time.Second, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	kubegotest.Start(t, updater)

	cms := client.Typed[*corev1.ConfigMap](cli).Namespace(ns.Name)
	create := func(ctx context.Context, verdict string) (*corev1.ConfigMap, error) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"}, Data: map[string]string{"verdict": verdict}}
		return cms.Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		cm, err := create(ctx, "allow")
		if err != nil {
			return err
		}
		if cm.Labels["defaulted"] != "true" {
			return errors.New("the mutating webhook has not been called yet")
		}
		return nil
	})
	start := time.Now()

	trafficCtx, stopTraffic := context.WithCancel(ctx)
	var (
		wg                   sync.WaitGroup
		admitted, denied     atomic.Int64
		failed               atomic.Int64
		firstFailure         atomic.Pointer[string]
		fail                 = func(msg string) { failed.Add(1); firstFailure.CompareAndSwap(nil, &msg) }
		denialFromTheWebhook = "denied by the validating webhook"
	)
	for i := range 2 {
		wg.Go(func() {
			for n := 0; trafficCtx.Err() == nil; n++ {
				verdict := "allow"
				if (n+i)%5 == 0 {
					verdict = "deny"
				}
				cm, err := create(trafficCtx, verdict)
				switch {
				case trafficCtx.Err() != nil:
				case verdict == "allow" && err == nil && cm.Labels["defaulted"] == "true":
					admitted.Add(1)
				case verdict == "deny" && apierrors.IsForbidden(err) && strings.Contains(err.Error(), denialFromTheWebhook):
					denied.Add(1)
				case err != nil:
					fail(fmt.Sprintf("%s: %v", verdict, err))
				default:
					fail(fmt.Sprintf("%s: admitted without the mutating webhook's label: %v", verdict, cm.Labels))
				}
			}
		})
	}

	// Three CAs must have signed certificates that kube-apiserver was
	// shown (the seeded one, and two rotated in), which takes about two
	// CA lifetimes; the bound is generous.
	waitCtx, cancel := context.WithTimeout(ctx, 10*caValidity)
	defer cancel()
	kubegotest.Eventually(waitCtx, t, func(context.Context) error {
		if n := shakes.distinct(); n < 3 {
			return fmt.Errorf("kube-apiserver was shown certificates of %d CAs, want 3", n)
		}
		return nil
	})
	stopTraffic()
	wg.Wait()

	// The replicas read the Secret every second: they agree within a few.
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		a, _ := provisioner.Bundle()
		b, _ := replica.Bundle()
		if string(a) != string(b) {
			return errors.New("the two replicas' bundles differ")
		}
		return nil
	})
	t.Logf("%s: %d admitted, %d denied by the webhook, %d failed; webhook calls: %d mutating, %d validating; TLS handshakes per CA: %v",
		time.Since(start).Round(time.Second), admitted.Load(), denied.Load(), failed.Load(), mux.called("/default"), mux.called("/validate"), shakes.counts())
	if failed.Load() > 0 {
		t.Fatalf("%d admissions failed across rotations; first: %s", failed.Load(), *firstFailure.Load())
	}
	if admitted.Load() == 0 || denied.Load() == 0 {
		t.Fatalf("%d admitted and %d denied, want some of each", admitted.Load(), denied.Load())
	}
}
