package rest

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestStreamReturnsTheBodyOrAStatusError(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("container") == "missing" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, "line 1\nline 2\n")
	})
	c, _ := newTestClient(t, srv, nil)
	logs := func(container string) *Request {
		return c.Get().Namespace("n").Resource("pods").Name("p").SubResource("log").
			Params(&corev1.PodLogOptions{Container: container})
	}
	rc, err := logs("app").Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	if err := rc.Close(); err != nil {
		t.Error(err)
	}
	if string(b) != "line 1\nline 2\n" {
		t.Errorf("stream = %q", b)
	}
	if _, err := logs("missing").Stream(context.Background()); !apierrors.IsNotFound(err) {
		t.Errorf("err = %v, want NotFound", err)
	}
}

func TestGzippedResponsesAreDecompressed(t *testing.T) {
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zipped"},"data":{"k":"` + strings.Repeat("v", 1000) + `"}}`
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("Accept-Encoding = %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", mediaJSON)
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, body)
		_ = zw.Close()
	})
	for _, tc := range []struct {
		name string
		wrap func(http.RoundTripper) http.RoundTripper
	}{
		{"transport decompresses", nil},
		// A wrapper that asks for gzip itself turns off the transport's
		// transparent decompression; the client still decodes.
		{"client decompresses", func(rt http.RoundTripper) http.RoundTripper {
			return rtFunc(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("Accept-Encoding", "gzip")
				return rt.RoundTrip(r)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.WrapTransport = tc.wrap })
			var cm corev1.ConfigMap
			if err := c.Get().Namespace("n").Resource("configmaps").Name("zipped").Do(context.Background()).Into(&cm); err != nil {
				t.Fatal(err)
			}
			if cm.Name != "zipped" || len(cm.Data["k"]) != 1000 {
				t.Errorf("got %s", cm.Name)
			}
		})
	}
}
