package webhookconfig

import (
	"testing"
	"time"

	"github.com/kubego/kubego/certs"
)

// Whatever a CA Secret holds, decoding it never panics, and the plan
// always ends with a usable signing CA that the bundle trusts.
func FuzzDecodeState(f *testing.F) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := manual{&now}
	ca, err := certs.NewCA(certs.CAOptions{Validity: time.Hour, Clock: clk})
	if err != nil {
		f.Fatal(err)
	}
	pair, _ := ca.Pair()
	f.Add(pair.CertPEM, pair.KeyPEM, pair.CertPEM, pair.CertPEM, pair.KeyPEM)
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), []byte{}, []byte("junk"), []byte{}, []byte{})
	f.Add(pair.CertPEM, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), append(pair.CertPEM, pair.CertPEM...), pair.KeyPEM, pair.CertPEM)
	sched := schedule{validity: time.Hour, propagation: time.Minute}
	f.Fuzz(func(t *testing.T, cert, key, bundle, nextCert, nextKey []byte) {
		s := decodeState(map[string][]byte{keyCert: cert, keyKey: key, keyBundle: bundle, keyNextCert: nextCert, keyNextKey: nextKey}, clk)
		out, _, err := sched.plan(s, now, func() (*certs.CA, error) { return ca, nil })
		if err != nil {
			t.Fatal(err)
		}
		if out.active == nil || !contains(out.trusted, out.active.Cert) {
			t.Fatal("no usable signing CA in the bundle")
		}
		if _, err := out.encode(); err != nil {
			t.Fatal(err)
		}
	})
}
