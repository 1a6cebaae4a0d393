package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
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
