package defaultlog_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

func TestNoLoggerSendsWarningsToTheDefault(t *testing.T) {
	buf := defaultlogtest.Capture(t)
	log := defaultlog.Or(nil).With("informer", "pods").WithGroup("g")
	log.Debug("chatter")
	log.Info("progress")
	log.Warn("watch failed", "err", "boom")
	log.Error("sync failed")
	out := buf.String()
	for _, absent := range []string{"chatter", "progress"} {
		if strings.Contains(out, absent) {
			t.Errorf("%q reached the default logger:\n%s", absent, out)
		}
	}
	for _, present := range []string{"level=WARN msg=\"watch failed\" informer=pods g.err=boom", "level=ERROR msg=\"sync failed\" informer=pods"} {
		if !strings.Contains(out, present) {
			t.Errorf("missing %q in:\n%s", present, out)
		}
	}
}

func TestDefaultIsLookedUpWhenLogging(t *testing.T) {
	log := defaultlog.New()
	buf := defaultlogtest.Capture(t) // after the logger was made
	log.Warn("late")
	if !strings.Contains(buf.String(), "late") {
		t.Fatalf("a default set after New was not used: %q", buf.String())
	}
}

func TestGivenLoggerIsKept(t *testing.T) {
	l := slog.New(slog.DiscardHandler)
	if defaultlog.Or(l) != l {
		t.Fatal("Or replaced a given logger")
	}
}
