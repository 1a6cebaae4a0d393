package testenv

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// BuildPhase is a step of a control-plane build.
type BuildPhase int

const (
	// PhaseWaiting: another process holds the build lock; this one waits
	// for its build.
	PhaseWaiting BuildPhase = iota
	// PhaseResolving: the Go toolchain downloads the pinned modules (on an
	// empty module cache) and works out which packages need compiling.
	PhaseResolving
	// PhaseCompiling: packages are being compiled.
	PhaseCompiling
	// PhaseLinking: every package is compiled; the programs are being
	// linked.
	PhaseLinking
	// PhaseDone: the binaries are in the cache.
	PhaseDone
)

func (p BuildPhase) String() string {
	switch p {
	case PhaseWaiting:
		return "waiting for another build"
	case PhaseResolving:
		return "resolving modules"
	case PhaseCompiling:
		return "compiling"
	case PhaseLinking:
		return "linking"
	case PhaseDone:
		return "done"
	}
	return fmt.Sprintf("BuildPhase(%d)", int(p))
}

// BuildProgress is a snapshot of a control-plane build.
type BuildProgress struct {
	Phase BuildPhase
	// Programs being built ("kube-apiserver", "etcd").
	Programs []string
	// Compiled counts the packages compiled so far, of Total that needed
	// compiling (packages already in the Go build cache are not counted).
	Compiled, Total int
	// Package is the package compiled last.
	Package string
	// Elapsed is the time since the build started.
	Elapsed time.Duration
	// Remaining is a rough estimate from the compile rate so far; zero
	// when there is not enough to go on yet.
	Remaining time.Duration
}

// String renders the progress as one line, e.g.
// "building kube-apiserver, etcd: compiling 812/2170 packages (37%), 4m10s elapsed, about 7m left".
func (p BuildProgress) String() string {
	var b strings.Builder
	if len(p.Programs) > 0 {
		fmt.Fprintf(&b, "building %s: ", strings.Join(p.Programs, ", "))
	}
	b.WriteString(p.Phase.String())
	if p.Phase == PhaseCompiling && p.Total > 0 {
		fmt.Fprintf(&b, " %d/%d packages (%d%%)", p.Compiled, p.Total, p.Compiled*100/p.Total)
	}
	if p.Elapsed > 0 {
		fmt.Fprintf(&b, ", %s elapsed", p.Elapsed.Round(time.Second))
	}
	if p.Remaining > 0 && p.Phase == PhaseCompiling {
		fmt.Fprintf(&b, ", about %s left", roughDuration(p.Remaining))
	}
	return b.String()
}

// roughDuration rounds an estimate to what it is worth: seconds under a
// minute, then whole minutes.
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(10 * time.Second).String()
	}
	return fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
}

// estimate returns the time left at the rate seen so far, once at least
// 5% of the packages are compiled (the first packages, the standard
// library's, are not representative before that). Linking is not in the
// count; it is added as a share of the elapsed time.
func estimate(compiled, total int, elapsed time.Duration) time.Duration {
	if total == 0 || compiled*20 < total || compiled >= total {
		return 0
	}
	left := time.Duration(float64(elapsed) * float64(total-compiled) / float64(compiled))
	return left + elapsed/20
}

// ProgressPrinter returns a BuildOptions.Progress func that writes progress
// to w. On a terminal it rewrites one line in place; otherwise (CI logs,
// files) it writes a plain line at each phase change and every interval
// of compiling (30 seconds when zero).
func ProgressPrinter(w io.Writer, terminal bool, interval time.Duration) func(BuildProgress) {
	if interval <= 0 {
		interval = 30 * time.Second
	}
	var (
		mu        sync.Mutex
		lastPhase = BuildPhase(-1)
		lastLine  time.Duration
	)
	return func(p BuildProgress) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case terminal:
			end := ""
			if p.Phase == PhaseDone {
				end = "\n"
			}
			fmt.Fprintf(w, "\r\033[K%s%s", p, end)
		case p.Phase != lastPhase || p.Elapsed-lastLine >= interval:
			fmt.Fprintln(w, p)
			lastLine = p.Elapsed
		}
		lastPhase = p.Phase
	}
}

// IsTerminal reports whether f is a character device (a terminal), so
// progress can be drawn in place.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// buildJob is one program to build into out.
type buildJob struct{ pkg, out string }

func jobNames(jobs []buildJob) []string {
	names := make([]string, len(jobs))
	for i, j := range jobs {
		names[i] = filepath.Base(j.out)
	}
	return names
}

// buildEnv is the environment of every go command the build runs: the tools
// module alone (no workspace), its own go.sum, the local toolchain, and
// static binaries without debug information, as Kubernetes releases build
// the control plane (no cgo to compile, a shorter link).
func buildEnv() []string {
	return append(os.Environ(),
		"GOWORK=off",
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
	)
}

// buildFlags are given to both go list and go build, so that what go list
// calls stale is what go build compiles.
func buildFlags(ldflags string) []string { return []string{"-trimpath", "-ldflags=" + ldflags} }

// goBuild builds the jobs' programs from the tools module in dir with one
// go command, so one program links while the other's packages compile.
// Each binary appears under its final name only when complete.
func goBuild(ctx context.Context, dir string, jobs []buildJob, ldflags string, progress func(BuildProgress)) error {
	if len(jobs) == 0 {
		return nil
	}
	goBin, err := goTool()
	if err != nil {
		return &BuildError{Package: jobs[0].pkg, Err: err}
	}
	report := func(BuildProgress) {}
	if progress != nil {
		report = progress
	}
	start := time.Now()
	snap := BuildProgress{Phase: PhaseResolving, Programs: jobNames(jobs)}
	report(snap)

	pkgs := make([]string, len(jobs))
	for i, j := range jobs {
		pkgs[i] = j.pkg
	}
	stale, err := stalePackages(ctx, goBin, dir, pkgs, ldflags)
	if err != nil {
		return err
	}
	snap.Phase, snap.Total = PhaseCompiling, len(stale)
	snap.Elapsed = time.Since(start)
	report(snap)

	binDir := filepath.Dir(jobs[0].out)
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return &BuildError{Package: pkgs[0], Err: err}
	}
	tmp, err := os.MkdirTemp(binDir, ".build-")
	if err != nil {
		return &BuildError{Package: pkgs[0], Err: err}
	}
	defer os.RemoveAll(tmp)

	args := append(append([]string{"build", "-v"}, buildFlags(ldflags)...), "-o", tmp+string(filepath.Separator))
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = buildEnv()
	out, err := cmd.StderrPipe()
	if err != nil {
		return &BuildError{Package: pkgs[0], Err: err}
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		return &BuildError{Package: pkgs[0], Err: err}
	}
	var other bytes.Buffer // everything that is not a compiled package's name
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if _, ok := stale[line]; !ok {
			other.WriteString(line)
			other.WriteByte('\n')
			continue
		}
		delete(stale, line)
		snap.Compiled++
		snap.Package = line
		snap.Elapsed = time.Since(start)
		snap.Remaining = estimate(snap.Compiled, snap.Total, snap.Elapsed)
		if snap.Compiled+len(jobs) >= snap.Total {
			// Only the programs' main packages are left (go list calls a
			// main package stale when its binary is missing, but the build
			// prints it only if it has to compile it): the link is next.
			snap.Phase = PhaseLinking
		}
		report(snap)
	}
	io.Copy(&other, out)
	if err := cmd.Wait(); err != nil {
		return &BuildError{Package: strings.Join(pkgs, " "), Output: tail(other.Bytes(), 8<<10), Err: err}
	}
	for _, j := range jobs {
		built := filepath.Join(tmp, execName(j.pkg))
		if err := os.Rename(built, j.out); err != nil {
			return &BuildError{Package: j.pkg, Output: tail(other.Bytes(), 8<<10), Err: err}
		}
	}
	snap.Phase, snap.Remaining, snap.Elapsed = PhaseDone, 0, time.Since(start)
	report(snap)
	return nil
}

// stalePackages lists the packages the build of pkgs has to compile: those
// not in the Go build cache. Listing them also downloads missing modules.
func stalePackages(ctx context.Context, goBin, dir string, pkgs []string, ldflags string) (map[string]struct{}, error) {
	args := append(append([]string{"list", "-deps"}, buildFlags(ldflags)...), "-f", "{{if .Stale}}{{.ImportPath}}{{end}}")
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = buildEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, &BuildError{Package: strings.Join(pkgs, " "), Output: tail(stderr.Bytes(), 8<<10), Err: err}
	}
	stale := make(map[string]struct{})
	for _, line := range strings.Split(stdout.String(), "\n") {
		if line != "" && line != "unsafe" {
			stale[line] = struct{}{}
		}
	}
	return stale, nil
}

// execName is the file name go build gives the program of a main package:
// the last element of its import path, or the one before a major-version
// suffix such as /v3.
func execName(pkg string) string {
	elem := path.Base(pkg)
	if len(elem) > 1 && elem[0] == 'v' && strings.Trim(elem[1:], "0123456789") == "" {
		elem = path.Base(path.Dir(pkg))
	}
	return elem
}
