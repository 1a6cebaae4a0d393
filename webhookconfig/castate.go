package webhookconfig

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/clock"
)

// The keys of the CA Secret. tls.crt and tls.key are the signing CA, so
// the Secret is a valid kubernetes.io/tls Secret; ca.crt is the bundle.
const (
	keyCert     = corev1.TLSCertKey       // the signing CA's certificate
	keyKey      = corev1.TLSPrivateKeyKey // the signing CA's key
	keyNextCert = "next.crt"              // the CA that signs next, already trusted
	keyNextKey  = "next.key"
	keyBundle   = "ca.crt" // every trusted CA: signing, next, and retiring ones
)

// ManagedLabel marks a Secret as a CA Secret of this package. A Secret of
// the configured name without it is never changed: Certificates.Start
// fails with ErrForeignSecret.
const ManagedLabel = "webhook.kubego.io/ca"

// caState is what the CA Secret holds, decoded.
type caState struct {
	active *certs.CA // signs serving certificates; nil when unusable
	next   *certs.CA // trusted already, signs after promotion; nil when none
	// trusted are the CA certificates of the bundle, in the Secret's
	// order (oldest first): active, next and retiring ones.
	trusted []*x509.Certificate
}

// decodeState reads a CA Secret's data. Parts that do not load (expired,
// damaged) are left out; the plan replaces them.
func decodeState(data map[string][]byte, clk clock.Clock) caState {
	var s caState
	if ca, err := certs.LoadCA(certs.KeyPair{CertPEM: data[keyCert], KeyPEM: data[keyKey]}, certs.CAOptions{Clock: clk}); err == nil {
		s.active = ca
	}
	if len(data[keyNextCert]) > 0 {
		if ca, err := certs.LoadCA(certs.KeyPair{CertPEM: data[keyNextCert], KeyPEM: data[keyNextKey]}, certs.CAOptions{Clock: clk}); err == nil {
			s.next = ca
		}
	}
	s.trusted = parseCerts(data[keyBundle])
	return s
}

// parseCerts returns the certificates of a PEM bundle, skipping what does
// not parse.
func parseCerts(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for len(data) > 0 {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// encode writes s into a Secret's data.
func (s caState) encode() (map[string][]byte, error) {
	pair, err := s.active.Pair()
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{keyCert: pair.CertPEM, keyKey: pair.KeyPEM, keyBundle: s.bundle()}
	if s.next != nil {
		np, err := s.next.Pair()
		if err != nil {
			return nil, err
		}
		data[keyNextCert], data[keyNextKey] = np.CertPEM, np.KeyPEM
	}
	return data, nil
}

// bundle is the PEM of every trusted CA, in order.
func (s caState) bundle() []byte {
	var b bytes.Buffer
	for _, c := range s.trusted {
		b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
	}
	return b.Bytes()
}

// schedule is when a CA Secret changes, from the configured CA validity
// V and propagation P: a next CA is made when the signing one has V/3
// left; it signs once the signing one has V/6 left and the next one has
// been trusted for P; a retiring CA leaves the bundle when it expires, and
// with it every certificate it signed.
type schedule struct{ validity, propagation time.Duration }

func (p schedule) addNextAt(active *x509.Certificate) time.Time {
	return active.NotAfter.Add(-p.validity / 3)
}

func (p schedule) promoteAt(active, next *x509.Certificate) time.Time {
	at := active.NotAfter.Add(-p.validity / 6)
	// next was made V before it expires.
	if trusted := next.NotAfter.Add(-p.validity + p.propagation); trusted.After(at) {
		at = trusted
	}
	return at
}

// errNewCA is returned by plan when a new CA could not be made.
var errNewCA = errors.New("making a CA")

// plan returns the state s should become at now, and why it changes
// ("" when it does not). newCA makes a fresh CA.
func (p schedule) plan(s caState, now time.Time, newCA func() (*certs.CA, error)) (caState, string, error) {
	out := caState{active: s.active, next: s.next}
	var reasons []string
	mint := func() (*certs.CA, error) {
		ca, err := newCA()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errNewCA, err)
		}
		return ca, nil
	}
	switch {
	case out.active == nil && out.next != nil:
		out.active, out.next = out.next, nil
		reasons = append(reasons, "the signing CA is unusable; the next one signs")
	case out.active == nil:
		ca, err := mint()
		if err != nil {
			return s, "", err
		}
		out.active = ca
		reasons = append(reasons, "no usable CA; made one")
	case out.next == nil && !now.Before(p.addNextAt(out.active.Cert)):
		ca, err := mint()
		if err != nil {
			return s, "", err
		}
		out.next = ca
		reasons = append(reasons, "the signing CA nears its expiry; made the next one, trusted from now on")
	case out.next != nil && !now.Before(p.promoteAt(out.active.Cert, out.next.Cert)):
		out.active, out.next = out.next, nil
		reasons = append(reasons, "the next CA signs from now on; the previous one stays trusted until it expires")
	}
	// The bundle: active, next, and the unexpired others of the old bundle
	// (retiring CAs, and the previous signer), oldest first, so that a
	// promotion leaves it unchanged: kube-apiserver rebuilds its client of
	// a webhook whose caBundle changed.
	out.trusted = []*x509.Certificate{out.active.Cert}
	if out.next != nil {
		out.trusted = append(out.trusted, out.next.Cert)
	}
	seen := func(c *x509.Certificate) bool {
		for _, t := range out.trusted {
			if t.Equal(c) {
				return true
			}
		}
		return false
	}
	old := s.trusted
	if s.active != nil {
		old = append([]*x509.Certificate{s.active.Cert}, old...)
	}
	dropped := 0
	for _, c := range old {
		if seen(c) {
			continue
		}
		if now.After(c.NotAfter) {
			dropped++
			continue
		}
		out.trusted = append(out.trusted, c)
	}
	slices.SortStableFunc(out.trusted, func(a, b *x509.Certificate) int { return a.NotAfter.Compare(b.NotAfter) })
	if dropped > 0 {
		reasons = append(reasons, fmt.Sprintf("%d expired CA(s) left the bundle", dropped))
	}
	if len(reasons) == 0 && !equalCerts(out.trusted, s.trusted) {
		reasons = append(reasons, "the bundle was not the trusted CAs")
	}
	if len(reasons) == 0 {
		return s, "", nil
	}
	reason := reasons[0]
	for _, r := range reasons[1:] {
		reason += "; " + r
	}
	return out, reason, nil
}

// wake is the next moment after now at which plan may change s.
func (p schedule) wake(s caState, now time.Time) time.Time {
	var at time.Time
	consider := func(t time.Time) {
		if t.After(now) && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	if s.active != nil {
		if s.next == nil {
			consider(p.addNextAt(s.active.Cert))
		} else {
			consider(p.promoteAt(s.active.Cert, s.next.Cert))
		}
		consider(s.active.Cert.NotAfter.Add(time.Second))
	}
	for _, c := range s.trusted {
		consider(c.NotAfter.Add(time.Second))
	}
	return at
}

func equalCerts(a, b []*x509.Certificate) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
