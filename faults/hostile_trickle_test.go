package faults_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

// Hostile 7d: a LIST whose headers and first bytes come at once and whose
// body then trickles a byte every 20 ms without end. With no context
// deadline and no Config.Timeout nothing else would ever end the call; the
// progress window cuts it. A large LIST that keeps coming for several
// windows is not cut: it brings ten times what a window asks for, so that
// a loaded machine's late writes do not starve the window.
func TestHostileTricklingBody(t *testing.T) {
	const window = time.Second
	tests := []struct {
		name string
		// body writes the LIST answer.
		body func(w http.ResponseWriter, r *http.Request, done <-chan struct{})
		cut  bool
	}{
		{"a byte every 20 ms without end", trickleList, true},
		{"1 MiB in 64 KiB pieces every 100 ms (1.6 s)", steadyList, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hs *hostile
			hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) { tt.body(w, r, hs.done) })
			cfg := hs.config(nil)
			withBodyProgressTimeout(cfg, window)
			c := hostileClient(t, cfg)
			// The deadline only ends the test if the client does not.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			start := time.Now()
			list, err := client.Typed[*corev1.ConfigMap](c).Namespace("a").List(ctx, metav1.ListOptions{})
			took := time.Since(start)
			if !tt.cut {
				if err != nil {
					t.Fatalf("List of a steady body: %v", err)
				}
				t.Logf("%d items in %s", len(list.Items), took.Round(time.Millisecond))
				return
			}
			if !isLimit(err, "ResponseBodyProgressTimeout") {
				t.Fatalf("List of a trickling body: err = %v after %s, want a ResponseBodyProgressTimeout limit", err, took.Round(time.Millisecond))
			}
			t.Logf("cut after %s (window %s): %v", took.Round(time.Millisecond), window, err)
		})
	}
}

// trickleList sends the start of a LIST, then a space every 20 ms until
// the client goes away.
func trickleList(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[`)
	f := w.(http.Flusher)
	f.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := io.WriteString(w, " "); err != nil {
			return
		}
		f.Flush()
	}
}

// steadyList sends a valid LIST of about 1 MiB in 64 KiB pieces every
// 100 ms.
func steadyList(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	w.Header().Set("Content-Type", "application/json")
	var items []string
	for i := range 4096 {
		items = append(items, cm("a", fmt.Sprintf("item-%04d-%s", i, strings.Repeat("x", 150)), "1"))
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[%s]}`, strings.Join(items, ","))
	f := w.(http.Flusher)
	for len(body) > 0 {
		n := min(len(body), 64<<10)
		if _, err := io.WriteString(w, body[:n]); err != nil {
			return
		}
		f.Flush()
		body = body[n:]
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
