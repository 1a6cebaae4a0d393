package faults_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// long skips t unless KUBEGO_FAULTS=long (make test-faults).
func long(t *testing.T) {
	t.Helper()
	if os.Getenv("KUBEGO_FAULTS") != "long" {
		t.Skip("long fault scenario: run with KUBEGO_FAULTS=long (make test-faults)")
	}
}

// knownFailure marks a scenario kubego does not survive yet. Under the
// default run (make test) it skips with "KNOWN FAILURE: why" so CI stays
// green; with KUBEGO_FAULTS=long (make test-faults) it runs and fails, so
// the failure stays measured. RELIABILITY.md lists it as a failing row.
func knownFailure(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("KUBEGO_FAULTS") != "long" {
		t.Skip("KNOWN FAILURE: " + why + " (run with KUBEGO_FAULTS=long to measure)")
	}
}

func newClient(t *testing.T, cfg *rest.Config) *client.Client {
	t.Helper()
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rc, client.Options{})
}

// newNamespace creates a namespace with a random name, deleted at cleanup.
func newNamespace(t *testing.T, c *client.Client) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	ns := "faults-" + hex.EncodeToString(b)
	if _, err := client.Typed[*corev1.Namespace](c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		client.Typed[*corev1.Namespace](c).Delete(ctx, ns, metav1.DeleteOptions{})
	})
	return ns
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
