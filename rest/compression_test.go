package rest

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDisableCompressionStopsAskingForGzip(t *testing.T) {
	tests := []struct {
		name    string
		disable bool
		want    string
	}{
		{"compression is asked for by default", false, "gzip"},
		{"DisableCompression asks for none", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan string, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Get("Accept-Encoding")
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
			}))
			defer srv.Close()
			c, err := NewClient(&Config{Host: srv.URL, DisableCompression: tt.disable})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get().AbsPath("/version").DoRaw(context.Background()); err != nil {
				t.Fatal(err)
			}
			if ae := <-got; ae != tt.want {
				t.Errorf("Accept-Encoding = %q, want %q", ae, tt.want)
			}
		})
	}
}

func TestWatchReportsWhetherTheServerCompressesIt(t *testing.T) {
	tests := []struct {
		name    string
		gzips   bool // the server gzips when asked
		disable bool // Config.DisableCompression
		want    bool
	}{
		{"a gzipped stream is compressed", true, false, true},
		{"a plain stream is not", false, false, false},
		{"with DisableCompression the server is not asked", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				var out io.Writer = w
				if tt.gzips && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
					w.Header().Set("Content-Encoding", "gzip")
					zw := gzip.NewWriter(w)
					defer zw.Close()
					out = zw
				}
				io.WriteString(out, jsonEventLine("ADDED", cmJSON("a", "1")))
			}))
			defer srv.Close()
			c, err := NewClient(&Config{Host: srv.URL, DisableCompression: tt.disable})
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.Get().Namespace("n").Resource("configmaps").Watch(t.Context(), func() runtime.Object { return &corev1.ConfigMap{} })
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if got := w.Compressed(); got != tt.want {
				t.Errorf("Compressed() = %v, want %v", got, tt.want)
			}
			ev, ok := <-w.ResultChan()
			if !ok || ev.Object.(*corev1.ConfigMap).Name != "a" {
				t.Fatalf("event = %+v, %v (err %v)", ev, ok, w.Err())
			}
		})
	}
}
