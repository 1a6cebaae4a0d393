package informer_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/testenv"
)

// watchRequest is what the test saw of one WATCH request.
type watchRequest struct {
	stream     bool // sendInitialEvents=true
	rv         string
	compressed bool
}

// A real kube-apiserver gzips a streaming watch when the client accepts
// gzip, and would go on gzipping each later event on its own; the informer
// reopens such a stream as a plain watch once it holds the initial state,
// and keeps an uncompressed stream open.
func TestIntegrationCompressedInitialStreamIsFollowedByAPlainWatch(t *testing.T) {
	cp := testenv.Shared(t)
	tests := []struct {
		name               string
		disableCompression bool
		want               []watchRequest // rv "*": the stream's end bookmark
	}{
		{"gzipped stream is reopened plain", false, []watchRequest{{stream: true, compressed: true}, {rv: "*"}}},
		{"plain stream is kept", true, []watchRequest{{stream: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []watchRequest
			cfg := cp.Config()
			cfg.DisableCompression = tt.disableCompression
			cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := rt.RoundTrip(r)
					q := r.URL.Query()
					if err == nil && q.Get("watch") == "true" && strings.HasSuffix(r.URL.Path, "/configmaps") {
						mu.Lock()
						seen = append(seen, watchRequest{
							stream:     q.Get("sendInitialEvents") == "true",
							rv:         q.Get("resourceVersion"),
							compressed: resp.Uncompressed || resp.Header.Get("Content-Encoding") == "gzip",
						})
						mu.Unlock()
					}
					return resp, err
				})
			}
			c := newClient(t, cfg)
			ns := newNamespace(t, c)
			cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
			if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f := informer.NewFactory(c, informer.FactoryOptions{})
			inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: ns}))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer func() { cancel(); f.Wait() }()
			f.Start(ctx)
			if err := f.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			syncRV := inf.LastSyncResourceVersion()
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			for {
				if _, ok := inf.Lister().Namespace(ns).Get("after"); ok {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("the new ConfigMap never reached the cache")
				case <-time.After(20 * time.Millisecond):
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if cp.Version() != testenv.DefaultVersion && !tt.disableCompression && len(seen) > 0 && !seen[0].compressed {
				// An older kube-apiserver does not gzip streaming watches:
				// then the stream must simply be kept.
				t.Logf("kube-apiserver %s sent the streaming list uncompressed", cp.Version())
				tt.want = []watchRequest{{stream: true}}
			}
			if len(seen) != len(tt.want) {
				t.Fatalf("watches %+v, want %+v", seen, tt.want)
			}
			for i, w := range tt.want {
				if w.rv == "*" {
					w.rv = syncRV
				}
				if seen[i] != w {
					t.Errorf("watch %d: %+v, want %+v", i, seen[i], w)
				}
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
