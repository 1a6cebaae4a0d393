package faults_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

// Hostile 7c: a server under load answering 429 with a Retry-After date
// already in the past (a stale cache, a skewed clock) is not hammered:
// every retry waits at least the client's minimum, as for a 429 without
// Retry-After.
func TestHostileRetryAfterPastDate(t *testing.T) {
	clk := &instantClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var requests atomic.Int32
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		stale := clk.Now().Add(-time.Hour)
		w.Header().Set("Retry-After", stale.Format(http.TimeFormat))
		w.WriteHeader(http.StatusTooManyRequests)
	})
	cfg := hs.config(nil)
	cfg.Clock = clk
	_, err := client.Typed[*corev1.ConfigMap](hostileClient(t, cfg)).Namespace("a").Get(t.Context(), "x", metav1.GetOptions{})
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("err = %v, want 429", err)
	}
	retries := time.Duration(requests.Load() - 1)
	if retries == 0 {
		t.Fatalf("the 429 was not retried")
	}
	if waited, least := clk.waited(), retries*time.Second; waited < least {
		t.Errorf("%d retries waited %s in all, want at least %s (a second each)", retries, waited, least)
	} else {
		t.Logf("%d retries waited %s", retries, waited)
	}
}
