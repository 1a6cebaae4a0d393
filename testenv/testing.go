package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"
)

// BuildTimeout bounds a first build of the binaries started from a test.
const BuildTimeout = 30 * time.Minute

// sharedPlane is the one control plane of a test binary (a test package).
// It is test-only state: it exists because a test binary runs one TestMain.
var sharedPlane struct {
	once sync.Once
	opts Options
	cp   *ControlPlane
	err  error
}

// Main runs the tests of a package and then stops the package's shared
// control plane, if one was started. Call it from TestMain:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) { MainWith(m, Options{}) }

// MainWith is Main for packages whose shared control plane needs options
// (static tokens, extra flags). Call it from TestMain:
//
//	func TestMain(m *testing.M) {
//		testenv.MainWith(m, testenv.Options{StaticTokens: tokens})
//	}
func MainWith(m *testing.M, opts Options) {
	sharedPlane.opts = opts
	code := m.Run()
	if sharedPlane.cp != nil {
		if err := sharedPlane.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// Shared returns the test package's control plane, starting it on first use.
// The package must call Main or MainWith from TestMain (whose options it
// uses), or the plane is left to die with
// the test binary (it cannot outlive it). Under -short it skips the test.
// When the plane cannot start, every test that asks for it fails with the
// same error.
func Shared(t testing.TB) *ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("testenv: integration test skipped under -short")
	}
	sharedPlane.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
		defer cancel()
		opts := sharedPlane.opts
		if opts.Logger == nil {
			opts.Logger = stderrLogger()
		}
		if opts.BuildProgress == nil {
			opts.BuildProgress = ProgressPrinter(os.Stderr, false, 0)
		}
		sharedPlane.cp, sharedPlane.err = Start(ctx, opts)
	})
	if sharedPlane.err != nil {
		t.Fatalf("testenv: shared control plane: %v", sharedPlane.err)
	}
	return sharedPlane.cp
}

// StartForTest starts a control plane of the test's own and stops it when the
// test ends. Under -short it skips the test.
func StartForTest(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("testenv: integration test skipped under -short")
	}
	if opts.Logger == nil {
		opts.Logger = stderrLogger()
	}
	if opts.BuildProgress == nil {
		opts.BuildProgress = ProgressPrinter(os.Stderr, false, 0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	cp, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	return cp
}

func stderrLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
