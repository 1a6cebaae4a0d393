package webhookconfig

import (
	"crypto/x509"
	"slices"
	"testing"
	"time"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/clock"
)

// manual is a clock.Clock whose Now the test sets.
type manual struct{ now *time.Time }

func (c manual) Now() time.Time { return *c.now }
func (c manual) AfterFunc(d time.Duration, f func()) clock.Timer {
	return time.AfterFunc(d, f)
}

func contains(list []*x509.Certificate, c *x509.Certificate) bool {
	return slices.ContainsFunc(list, c.Equal)
}

// Walking the plan through three CA lifetimes, one step at a time: every
// serving certificate still valid is signed by a CA of the bundle, a CA
// signs only after it was in the bundle for the propagation time, and an
// expired CA leaves the bundle.
func TestPlanRotatesTheCAWithOverlap(t *testing.T) {
	const (
		validity    = 120 * time.Hour
		propagation = 10 * time.Hour
		serving     = 20 * time.Hour
		step        = time.Hour
	)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := manual{&now}
	sched := schedule{validity: validity, propagation: propagation}
	newCA := func() (*certs.CA, error) { return certs.NewCA(certs.CAOptions{Validity: validity, Clock: clk}) }

	type leaf struct {
		issuer   *x509.Certificate
		notAfter time.Time
	}
	var (
		state       caState
		leaves      []leaf
		trustedFrom = map[string]time.Time{} // CA serial → when it joined the bundle
		signers     = map[string]bool{}
		renewAt     time.Time
	)
	for now.Before(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(3 * validity)) {
		next, _, err := sched.plan(state, now, newCA)
		if err != nil {
			t.Fatal(err)
		}
		if state.active != nil && next.active != state.active && !equalCerts(next.trusted, state.trusted) {
			t.Fatalf("at %s a promotion changed the bundle", now)
		}
		state = next
		for _, c := range state.trusted {
			if _, ok := trustedFrom[c.SerialNumber.String()]; !ok {
				trustedFrom[c.SerialNumber.String()] = now
			}
		}
		active := state.active.Cert
		if !signers[active.SerialNumber.String()] {
			signers[active.SerialNumber.String()] = true
			if len(signers) > 1 {
				if since := now.Sub(trustedFrom[active.SerialNumber.String()]); since < propagation {
					t.Fatalf("at %s a CA signs %s after it joined the bundle, want at least %s", now, since, propagation)
				}
			}
		}
		// A replica renews its certificate when due or when the signer changed.
		if len(leaves) == 0 || !now.Before(renewAt) || !leaves[len(leaves)-1].issuer.Equal(active) {
			notAfter := now.Add(min(serving, active.NotAfter.Sub(now)))
			leaves = append(leaves, leaf{issuer: active, notAfter: notAfter})
			renewAt = now.Add(notAfter.Sub(now) * 2 / 3)
		}
		for _, l := range leaves {
			if now.Before(l.notAfter) && !contains(state.trusted, l.issuer) {
				t.Fatalf("at %s a valid serving certificate's CA %s is not in the bundle", now, l.issuer.SerialNumber)
			}
		}
		for _, c := range state.trusted {
			if now.After(c.NotAfter) {
				t.Fatalf("at %s the bundle holds CA %s, expired at %s", now, c.SerialNumber, c.NotAfter)
			}
		}
		if w := sched.wake(state, now); !w.IsZero() && w.Before(now) {
			t.Fatalf("wake %s before now %s", w, now)
		}
		now = now.Add(step)
	}
	if len(signers) < 3 {
		t.Fatalf("%d CAs signed over three lifetimes, want at least 3", len(signers))
	}
}

// A state survives the Secret: encode then decode gives the same CAs and
// bundle; parts that do not load are left out and replaced by the plan.
func TestStateRoundTripsThroughSecretData(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := manual{&now}
	a, _ := certs.NewCA(certs.CAOptions{Validity: time.Hour, Clock: clk})
	b, _ := certs.NewCA(certs.CAOptions{Validity: time.Hour, Clock: clk})
	s := caState{active: a, next: b, trusted: []*x509.Certificate{a.Cert, b.Cert}}
	data, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	got := decodeState(data, clk)
	if !got.active.Cert.Equal(a.Cert) || got.next == nil || !got.next.Cert.Equal(b.Cert) || !equalCerts(got.trusted, s.trusted) {
		t.Fatalf("decoded state differs")
	}

	for name, mutate := range map[string]func(map[string][]byte){
		"damaged key":  func(d map[string][]byte) { d[keyKey] = []byte("not a key") },
		"empty Secret": func(d map[string][]byte) { clear(d) },
	} {
		t.Run(name, func(t *testing.T) {
			d, _ := s.encode()
			mutate(d)
			st := decodeState(d, clk)
			if st.active != nil {
				t.Fatal("an unusable CA was loaded")
			}
			out, reason, err := schedule{validity: time.Hour, propagation: time.Minute}.plan(st, now, func() (*certs.CA, error) {
				return certs.NewCA(certs.CAOptions{Validity: time.Hour, Clock: clk})
			})
			if err != nil || reason == "" || out.active == nil || !contains(out.trusted, out.active.Cert) {
				t.Fatalf("plan = %v, %q, %v; want a usable signing CA in the bundle", out.active, reason, err)
			}
		})
	}

	later := now.Add(2 * time.Hour)
	if st := decodeState(data, manual{&later}); st.active != nil || st.next != nil {
		t.Fatal("expired CAs were loaded")
	}
}

// A plan with nothing due changes nothing.
func TestPlanOfASteadyStateIsNoChange(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := manual{&now}
	a, _ := certs.NewCA(certs.CAOptions{Validity: time.Hour, Clock: clk})
	s := caState{active: a, trusted: []*x509.Certificate{a.Cert}}
	out, reason, err := schedule{validity: time.Hour, propagation: time.Minute}.plan(s, now.Add(time.Minute), func() (*certs.CA, error) {
		t.Fatal("a CA was made")
		return nil, nil
	})
	if err != nil || reason != "" || out.active != a {
		t.Fatalf("plan = %q, %v; want no change", reason, err)
	}
}
