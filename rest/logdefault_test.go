package rest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

// Without a Logger, a server warning (logged at warn level) must reach
// slog.Default(). The test replaces slog.Default(), so it must not run in
// parallel.
func TestNoLoggerSendsWarningsToTheDefaultLogger(t *testing.T) {
	out := defaultlogtest.Capture(t)

	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "v1beta1 is deprecated"`)
	})
	c, err := NewClient(&Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get().AbsPath("/").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "v1beta1 is deprecated") {
		t.Fatalf("slog.Default() did not get the warning:\n%s", got)
	}
}
