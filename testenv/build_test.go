package testenv

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestExecNameFollowsGoBuild(t *testing.T) {
	for _, tc := range []struct{ pkg, want string }{
		{"k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver"},
		{"go.etcd.io/etcd/server/v3", "server"},
		{"example.com/tool/v10", "tool"},
		{"example.com/v", "v"},
		{"example.com/version", "version"},
		{"example.com/v2x", "v2x"},
	} {
		if got := execName(tc.pkg); got != tc.want {
			t.Errorf("execName(%q) = %q, want %q", tc.pkg, got, tc.want)
		}
	}
}

func TestEstimateWaitsForFivePercent(t *testing.T) {
	for _, tc := range []struct {
		name            string
		compiled, total int
		elapsed         time.Duration
		want            time.Duration
	}{
		{"nothing to compile", 0, 0, time.Minute, 0},
		{"under five percent", 4, 100, time.Minute, 0},
		{"at five percent the rate extrapolates, plus a twentieth for the link", 5, 100, time.Minute, 19*time.Minute + 3*time.Second},
		{"half way", 50, 100, 4 * time.Minute, 4*time.Minute + 12*time.Second},
		{"all compiled", 100, 100, 4 * time.Minute, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate(tc.compiled, tc.total, tc.elapsed); got != tc.want {
				t.Errorf("estimate(%d, %d, %s) = %s, want %s", tc.compiled, tc.total, tc.elapsed, got, tc.want)
			}
		})
	}
}

func TestProgressLineSaysWhatHowFarAndHowLong(t *testing.T) {
	p := BuildProgress{
		Phase: PhaseCompiling, Programs: []string{"etcd", "kube-apiserver"},
		Compiled: 812, Total: 2170, Elapsed: 250 * time.Second, Remaining: 7*time.Minute + 10*time.Second,
	}
	want := "building etcd, kube-apiserver: compiling 812/2170 packages (37%), 4m10s elapsed, about 7m left"
	if got := p.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p.Phase, p.Remaining = PhaseLinking, 0
	if got := p.String(); !strings.Contains(got, "linking") || strings.Contains(got, "left") {
		t.Errorf("linking line %q", got)
	}
}

func TestProgressPrinterInCILogsWritesPhaseChangesAndAnIntervalLine(t *testing.T) {
	var buf bytes.Buffer
	print := ProgressPrinter(&buf, false, 30*time.Second)
	print(BuildProgress{Phase: PhaseResolving})
	for i := 1; i <= 100; i++ {
		print(BuildProgress{Phase: PhaseCompiling, Compiled: i, Total: 100, Elapsed: time.Duration(i) * time.Second})
	}
	print(BuildProgress{Phase: PhaseLinking, Compiled: 100, Total: 100, Elapsed: 101 * time.Second})
	print(BuildProgress{Phase: PhaseDone, Compiled: 100, Total: 100, Elapsed: 110 * time.Second})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// resolving, compiling 1, then 31, 61, 91, linking, done
	if len(lines) != 7 {
		t.Fatalf("got %d lines, want 7:\n%s", len(lines), buf.String())
	}
	if strings.Contains(buf.String(), "\r") {
		t.Error("plain output contains a carriage return")
	}
}

func TestProgressPrinterOnATerminalRewritesOneLine(t *testing.T) {
	var buf bytes.Buffer
	print := ProgressPrinter(&buf, true, 0)
	print(BuildProgress{Phase: PhaseCompiling, Compiled: 1, Total: 2})
	print(BuildProgress{Phase: PhaseCompiling, Compiled: 2, Total: 2})
	print(BuildProgress{Phase: PhaseDone})
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Errorf("%d newlines, want only the final one: %q", n, buf.String())
	}
	if n := strings.Count(buf.String(), "\r\033[K"); n != 3 {
		t.Errorf("%d line rewrites, want 3: %q", n, buf.String())
	}
}

// TestGoBuildReportsEveryCompiledPackageAndPlacesBothPrograms builds two
// tiny programs (one with a major-version suffix) with the real toolchain.
func TestGoBuildReportsEveryCompiledPackageAndPlacesBothPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/tool/v3\n\ngo 1.26\n",
		"main.go":           "package main\n\nimport \"example.com/tool/v3/internal/greet\"\n\nfunc main() { greet.Hello() }\n",
		"cmd/hello/main.go": "package main\n\nimport \"example.com/tool/v3/internal/greet\"\n\nfunc main() { greet.Hello() }\n",
		// A fresh constant each run, so the package is never in the build cache.
		"internal/greet/greet.go": "package greet\n\nimport \"fmt\"\n\nconst run = \"" + strconv.FormatInt(time.Now().UnixNano(), 36) + "\"\n\nfunc Hello() { fmt.Println(\"hello\", run) }\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jobs := []buildJob{
		{pkg: "example.com/tool/v3", out: filepath.Join(dir, "bin", "tool")},
		{pkg: "example.com/tool/v3/cmd/hello", out: filepath.Join(dir, "bin", "hello")},
	}
	var seen []BuildProgress
	err := goBuild(context.Background(), filepath.Join(dir, "src"), jobs, "-s -w", func(p BuildProgress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if !exists(j.out) {
			t.Errorf("%s was not placed at %s", j.pkg, j.out)
		}
	}
	if len(seen) < 3 || seen[0].Phase != PhaseResolving || seen[len(seen)-1].Phase != PhaseDone {
		t.Fatalf("phases %v: want resolving first and done last", seen)
	}
	last := seen[len(seen)-1]
	if last.Total < 3 || last.Compiled != last.Total {
		t.Errorf("compiled %d of %d packages: want every stale package counted (at least greet and the two mains)", last.Compiled, last.Total)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "bin")); len(entries) != 2 {
		t.Errorf("bin holds %d entries, want the two programs and no leftover temporary directory", len(entries))
	}
}

func TestGoBuildFailureCarriesTheCompilerOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/broken\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	err := goBuild(context.Background(), dir, []buildJob{{pkg: "example.com/broken", out: filepath.Join(dir, "bin", "broken")}}, "-s -w", nil)
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BuildError", err)
	}
	if !strings.Contains(be.Output, "undefinedThing") {
		t.Errorf("output %q does not name the compile error", be.Output)
	}
}
