package kubeletstub

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// shared is the one stand-in of a test binary, beside testenv's shared
// control plane. It is test-only state: a test binary runs one TestMain.
var shared struct {
	auth *Authority
	once sync.Once
	k    *Kubelet
	err  error
}

// Main runs the tests of a package whose shared control plane trusts the
// stand-in. Call it from TestMain:
//
//	func TestMain(m *testing.M) { kubeletstub.Main(m) }
func Main(m *testing.M) { MainWith(m, testenv.Options{}) }

// MainWith is Main with control plane options (KubeletCA is set here).
func MainWith(m *testing.M, opts testenv.Options) {
	auth, err := NewAuthority()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared.auth = auth
	opts.KubeletCA = auth.CertPEM()
	testenv.MainWith(m, opts)
}

// SharedAuthority returns the Authority Main made, for tests that start a
// stand-in of their own (StartForTest).
func SharedAuthority() *Authority { return shared.auth }

// Shared returns the package's control plane and its stand-in kubelet
// (Builtins, Node "kubeletstub"), both started on first use; the stand-in
// lives as long as the test binary. The package must call Main or
// MainWith from TestMain. Under -short it skips the test.
func Shared(t testing.TB) (*testenv.ControlPlane, *Kubelet) {
	t.Helper()
	cp := testenv.Shared(t)
	if shared.auth == nil {
		t.Fatal("kubeletstub: call kubeletstub.Main from TestMain")
	}
	shared.once.Do(func() {
		shared.k, shared.err = start(context.Background(), cp, Options{Authority: shared.auth})
	})
	if shared.err != nil {
		t.Fatalf("kubeletstub: %v", shared.err)
	}
	return cp, shared.k
}

// StartForTest starts a stand-in with opts (Authority defaults to the
// shared one) on cp, registers its Node and stops it when the test ends.
// Give each one its own Options.NodeName.
func StartForTest(t testing.TB, cp *testenv.ControlPlane, opts Options) *Kubelet {
	t.Helper()
	if opts.Authority == nil {
		opts.Authority = shared.auth
	}
	k, err := start(t.Context(), cp, opts)
	if err != nil {
		t.Fatalf("kubeletstub: %v", err)
	}
	t.Cleanup(func() { _ = k.Close() })
	return k
}

func start(ctx context.Context, cp *testenv.ControlPlane, opts Options) (*Kubelet, error) {
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		return nil, err
	}
	k, err := Start(context.WithoutCancel(ctx), opts)
	if err != nil {
		return nil, err
	}
	if _, err := k.RegisterNode(ctx, c); err != nil {
		_ = k.Close()
		return nil, err
	}
	return k, nil
}
