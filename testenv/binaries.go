package testenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/kubego/kubego/internal/defaultlog"
)

// EnvBinDir names an environment variable pointing at a directory with
// prebuilt kube-apiserver and etcd binaries. When set, nothing is built.
const EnvBinDir = "KUBEGO_CONTROLPLANE_BIN"

// EnvCacheDir overrides the cache directory binaries are built into
// (default: os.UserCacheDir()/kubego).
const EnvCacheDir = "KUBEGO_CACHE_DIR"

// Binaries are the paths of the two control-plane programs.
type Binaries struct {
	APIServer string
	Etcd      string
}

// BuildError reports a failed build of the control-plane binaries, with the
// tail of the Go toolchain's output.
type BuildError struct {
	Package string
	Output  string
	Err     error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("testenv: building %s: %v\n%s", e.Package, e.Err, e.Output)
}

func (e *BuildError) Unwrap() error { return e.Err }

// BuildOptions configure EnsureBinaries. The zero value builds silently.
type BuildOptions struct {
	// Version is the kube-apiserver minor version to build ("1.34"; see
	// Versions). Empty means the KUBEGO_APISERVER_VERSION environment
	// variable, or DefaultVersion. Every version runs with the same etcd.
	Version string

	// Logger receives a line when a build starts and when it ends. Nil
	// discards.
	Logger *slog.Logger

	// Progress, when set, is called as a build advances: once per phase
	// change and after each compiled package. It is called from one
	// goroutine at a time and must return quickly.
	Progress func(BuildProgress)
}

// EnsureBinaries returns the control-plane binaries, building them into the
// cache when they are missing. It is safe to call from many processes at
// once: a file lock serialises builds, and a finished build is visible to all.
// A first build takes minutes; opts.Progress tells how far it is. A version
// testenv has no pins for is an *UnknownVersionError.
func EnsureBinaries(ctx context.Context, opts BuildOptions) (Binaries, error) {
	log := defaultlog.Or(opts.Logger)
	version, err := resolveVersion(opts.Version)
	if err != nil {
		return Binaries{}, err
	}
	if dir := os.Getenv(EnvBinDir); dir != "" {
		b := Binaries{APIServer: filepath.Join(dir, "kube-apiserver"), Etcd: filepath.Join(dir, "etcd")}
		for _, p := range []string{b.APIServer, b.Etcd} {
			if _, err := os.Stat(p); err != nil {
				return Binaries{}, fmt.Errorf("testenv: %s=%s: %w", EnvBinDir, dir, err)
			}
		}
		return b, nil
	}
	root, err := cacheRoot()
	if err != nil {
		return Binaries{}, err
	}
	base, err := pinsFor(DefaultVersion)
	if err != nil {
		return Binaries{}, err
	}
	baseBin := filepath.Join(root, "controlplane", base.hash(), "bin")
	b := Binaries{APIServer: filepath.Join(baseBin, "kube-apiserver"), Etcd: filepath.Join(baseBin, "etcd")}
	if version == DefaultVersion {
		return b, ensureBuilt(ctx, root, base, []buildJob{{pkg: etcdPkg, out: b.Etcd}, {pkg: apiServerPkg, out: b.APIServer}}, opts, log)
	}
	// An older kube-apiserver comes from its own tools module; etcd from
	// the default one, built alone if it is missing.
	if err := ensureBuilt(ctx, root, base, []buildJob{{pkg: etcdPkg, out: b.Etcd}}, opts, log); err != nil {
		return Binaries{}, err
	}
	vp, err := pinsFor(version)
	if err != nil {
		return Binaries{}, err
	}
	b.APIServer = filepath.Join(root, "controlplane", vp.hash(), "bin", "kube-apiserver")
	return b, ensureBuilt(ctx, root, vp, []buildJob{{pkg: apiServerPkg, out: b.APIServer}}, opts, log)
}

// ensureBuilt builds those of the jobs whose binaries are missing, from the
// tools module p, under a lock in its cache directory.
func ensureBuilt(ctx context.Context, root string, p pins, jobs []buildJob, opts BuildOptions, log *slog.Logger) error {
	missing := func() []buildJob {
		var out []buildJob
		for _, j := range jobs {
			if !exists(j.out) {
				out = append(out, j)
			}
		}
		return out
	}
	if len(missing()) == 0 {
		return nil
	}
	dir := filepath.Join(root, "controlplane", p.hash())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testenv: cache dir: %w", err)
	}
	if opts.Progress != nil && !tryLock(filepath.Join(dir, "build.lock")) {
		opts.Progress(BuildProgress{Phase: PhaseWaiting})
	}
	unlock, err := lockFile(ctx, filepath.Join(dir, "build.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	// Another process may have finished the build while we waited.
	todo := missing()
	if len(todo) == 0 {
		return nil
	}
	if err := writeToolsModule(filepath.Join(dir, "src"), p); err != nil {
		return err
	}
	start := time.Now()
	log.Info("testenv: building the control plane (first time only, takes minutes)", "packages", jobNames(todo), "cache", dir)
	if err := goBuild(ctx, filepath.Join(dir, "src"), todo, p.ldflags(), opts.Progress); err != nil {
		return err
	}
	log.Info("testenv: built the control plane", "took", time.Since(start).Round(time.Second))
	return nil
}

func cacheRoot() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("testenv: no cache directory (set %s): %w", EnvCacheDir, err)
	}
	return filepath.Join(d, "kubego"), nil
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func writeToolsModule(dir string, p pins) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	for name, data := range map[string][]byte{"go.mod": p.goMod, "go.sum": p.goSum, "tools.go": p.tools} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("testenv: writing tools module: %w", err)
		}
	}
	return nil
}

func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if exists(p) {
		return p, nil
	}
	return "", errors.New("the go command is not on PATH")
}

// tryLock reports whether the lock at path is free right now (taking and
// releasing it at once).
func tryLock(path string) bool {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return true
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// lockFile takes an exclusive flock on path, waiting until it is free or ctx
// ends. The returned func releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("testenv: build lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("testenv: build lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("testenv: waiting for another process's build: %w", ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
