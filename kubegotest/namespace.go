package kubegotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// Namespace creates a namespace of its own for the test and deletes it
// when the test ends, and returns its name: the test's name, lower-cased
// and cut to fit, plus a random suffix, so that `go test -count=N` and
// parallel tests sharing one API server never meet an object of another
// run (a namespace being deleted keeps its name for a while, and for ever
// on a control plane without kube-controller-manager, such as testenv's).
// It fails the test when the namespace cannot be created.
func Namespace(t testing.TB, c *client.Client) string {
	t.Helper()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	name := dnsLabel(t.Name(), 63-9) + "-" + hex.EncodeToString(suffix[:])
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubegotest.kubego.io/test": dnsLabel(t.Name(), 63)}}}
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kubegotest: creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		if err := client.Typed[*corev1.Namespace](c).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("kubegotest: deleting namespace %s: %v", name, err)
		}
	})
	return name
}

// dnsLabel turns s into a DNS label of at most n characters: lower case,
// letters, digits and '-', starting with a letter.
func dnsLabel(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if b.Len() >= n {
			break
		}
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > n {
		out = strings.Trim(out[:n], "-")
	}
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = strings.Trim("t-"+out, "-")
		if len(out) > n {
			out = strings.Trim(out[:n], "-")
		}
	}
	return out
}

// WaitForEvent waits until an events.k8s.io/v1 Event about obj with the
// given reason exists (see Events for how Events are matched), and
// returns it. It fails t, naming the reasons it saw, when none came
// before ctx ends (DefaultTimeout when ctx has no deadline). Like
// t.Fatal, call it from the test's goroutine.
func WaitForEvent(ctx context.Context, t testing.TB, c *client.Client, obj informer.Object, reason string) eventsv1.Event {
	t.Helper()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	var found eventsv1.Event
	err := Poll(ctx, func(ctx context.Context) error {
		evs, err := Events(ctx, c, obj)
		if err != nil {
			return err
		}
		var seen []string
		for _, ev := range evs {
			if ev.Reason == reason {
				found = ev
				return nil
			}
			seen = append(seen, ev.Reason)
		}
		return fmt.Errorf("no Event with reason %q about %s among %d (reasons %q)", reason, informer.KeyOf(obj), len(evs), seen)
	})
	if err != nil {
		t.Fatalf("kubegotest: %v", err)
	}
	return found
}
