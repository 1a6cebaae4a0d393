package kubegotest

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestTestWriterDropsWritesAfterClose(t *testing.T) {
	var out bytes.Buffer
	w := &testWriter{out: &out}
	log := slog.New(slog.NewTextHandler(w, nil))
	log.Info("during the test", "n", 1)
	w.close()
	log.Info("after the test")
	got := out.String()
	if !strings.Contains(got, "during the test") || strings.Contains(got, "after the test") {
		t.Fatalf("output %q: want the record logged before close only", got)
	}
}
