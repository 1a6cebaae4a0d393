package podexec_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/podexec"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/testenv/kubeletstub"
)

const nobodyToken = "nobody-token"

func TestMain(m *testing.M) {
	kubeletstub.MainWith(m, testenv.Options{StaticTokens: []testenv.StaticToken{{Token: nobodyToken, User: "nobody"}}})
}

var podNames = regexp.MustCompile(`[^a-z0-9]+`)

// setup returns an admin client and a Pod on the shared stand-in, named
// after the test.
func setup(t *testing.T) (*testenv.ControlPlane, *rest.Client, podexec.Options) {
	t.Helper()
	cp, k := kubeletstub.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Trim(podNames.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 60 {
		name = name[len(name)-60:]
		name = strings.Trim(name, "-")
	}
	if _, err := k.CreatePod(t.Context(), c, "default", name, ""); err != nil {
		t.Fatal(err)
	}
	return cp, c, podexec.Options{Namespace: "default", Pod: name}
}

func TestExecSplitsOutputAndReturnsTheExitCode(t *testing.T) {
	_, c, base := setup(t)
	tests := []struct {
		name    string
		command []string
		code    int // -1: success
	}{
		{"exit zero is nil", []string{"report", "to-out", "to-err", "0"}, -1},
		{"exit 3 is an ExitError", []string{"report", "to-out", "to-err", "3"}, 3},
		{"an unknown command exits 127", []string{"no-such-command"}, 127},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			opts := base
			opts.Command, opts.Stdout, opts.Stderr = tt.command, &stdout, &stderr
			err := podexec.Run(t.Context(), c, opts)
			if tt.code < 0 {
				if err != nil {
					t.Fatal(err)
				}
				if stdout.String() != "to-out" || stderr.String() != "to-err" {
					t.Fatalf("stdout %q stderr %q", stdout.String(), stderr.String())
				}
				return
			}
			var exit *podexec.ExitError
			if !errors.As(err, &exit) || exit.Code != tt.code {
				t.Fatalf("err = %v, want exit code %d", err, tt.code)
			}
		})
	}
}

func TestStdinIsStreamedAndItsEndReachesTheCommand(t *testing.T) {
	_, c, opts := setup(t)
	in := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	var stdout bytes.Buffer
	opts.Command, opts.Stdin, opts.Stdout = []string{"cat"}, bytes.NewReader(in), &stdout
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// cat ends only when it sees the end of stdin: the v5 close signal.
	if err := podexec.Run(ctx, c, opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), in) {
		t.Fatalf("got %d bytes back, want the %d sent", stdout.Len(), len(in))
	}
}

func TestTTYResizesReachTheTerminal(t *testing.T) {
	_, c, opts := setup(t)
	sizes := make(chan podexec.Size, 2)
	sizes <- podexec.Size{Width: 80, Height: 24}
	sizes <- podexec.Size{Width: 132, Height: 43}
	var stdout bytes.Buffer
	opts.Command, opts.TTY, opts.Resize, opts.Stdout, opts.Stderr = []string{"sizes", "2"}, true, sizes, &stdout, io.Discard
	if err := podexec.Run(t.Context(), c, opts); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "80x24\n132x43\n" {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func TestAttachConnectsToTheRunningProcess(t *testing.T) {
	_, c, opts := setup(t)
	var stdout bytes.Buffer
	opts.Stdin, opts.Stdout = strings.NewReader("attached\n"), &stdout
	if err := podexec.Attach(t.Context(), c, opts); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "attached\n" {
		t.Fatalf("stdout %q", stdout.String())
	}
}

// hangUpLooksLikeSuccess reports whether the control plane's
// kube-apiserver turns a kubelet that hangs up without a result into a
// success (see the package doc): 1.34 and 1.35 translate every exec to the
// kubelet's SPDY and do so. The tests then hold the client to that
// documented behaviour instead.
func hangUpLooksLikeSuccess(t *testing.T, cp *testenv.ControlPlane) bool {
	switch v := cp.Version(); v {
	case "1.34", "1.35":
		t.Logf("kube-apiserver %s reports a kubelet's hang-up as a success; Run must return nil", v)
		return true
	}
	return false
}

func TestAStandInThatHangsUpMidStreamIsAStreamError(t *testing.T) {
	cp, c, opts := setup(t)
	var stdout bytes.Buffer
	opts.Command, opts.Stdout = []string{"hang-up"}, &stdout
	err := podexec.Run(t.Context(), c, opts)
	var se *podexec.StreamError
	if hangUpLooksLikeSuccess(t, cp) {
		if err != nil {
			t.Fatalf("err = %v, want nil (what this server reports)", err)
		}
	} else if !errors.As(err, &se) || !errors.Is(err, podexec.ErrNoStatus) {
		t.Fatalf("err = %v, want a StreamError with ErrNoStatus", err)
	}
	if stdout.String() != "bye\n" {
		t.Fatalf("stdout %q: output before the hang-up is lost", stdout.String())
	}
}

func TestCancellingTheContextClosesTheStream(t *testing.T) {
	_, c, opts := setup(t)
	opts.Command, opts.Stdout = []string{"wait"}, io.Discard
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	err := podexec.Run(ctx, c, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Run returned %v after the cancel", d)
	}
}

// patternWriter checks the burst pattern as it arrives and keeps nothing.
type patternWriter struct {
	n   int64
	bad atomic.Bool
}

func (w *patternWriter) Write(p []byte) (int, error) {
	for i, b := range p {
		if b != kubeletstub.Pattern(w.n+int64(i)) {
			w.bad.Store(true)
		}
	}
	w.n += int64(len(p))
	return len(p), nil
}

func TestAHugeBurstOfOutputKeepsMemoryBounded(t *testing.T) {
	_, c, opts := setup(t)
	const size = 128 << 20
	w := &patternWriter{}
	opts.Command, opts.Stdout = []string{"burst", fmt.Sprint(size)}, w
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	err := podexec.Run(t.Context(), c, opts)
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if w.n != size || w.bad.Load() {
		t.Fatalf("received %d bytes (pattern broken: %v), want %d", w.n, w.bad.Load(), size)
	}
	// The stand-in runs in this process too; both together stay far below
	// the size of the output.
	if grown := int64(peak.Load()) - int64(base); grown > 48<<20 {
		t.Fatalf("heap grew by %d MiB while %d MiB streamed", grown>>20, size>>20)
	}
}

func TestNoPermissionIsA403WithTheCause(t *testing.T) {
	cp, _, opts := setup(t)
	c, err := rest.NewClient(cp.TokenConfig(nobodyToken))
	if err != nil {
		t.Fatal(err)
	}
	opts.Command, opts.Stdout = []string{"echo"}, io.Discard
	err = podexec.Run(t.Context(), c, opts)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "pods/exec") {
		t.Fatalf("err = %v, want 403 naming pods/exec", err)
	}
}

func TestAnAPIServerRestartEndsTheStreamAndTheNextRunWorks(t *testing.T) {
	cp, c, _ := setup(t)
	started := make(chan struct{}, 1)
	k := kubeletstub.StartForTest(t, cp, kubeletstub.Options{
		NodeName: "restart-stand-in",
		Run: func(ctx context.Context, p *kubeletstub.Process) error {
			if p.Command[0] == "wait" {
				started <- struct{}{}
			}
			return kubeletstub.Builtins(ctx, p)
		},
	})
	if _, err := k.CreatePod(t.Context(), c, "default", "restart", ""); err != nil {
		t.Fatal(err)
	}
	opts := podexec.Options{Namespace: "default", Pod: "restart", Command: []string{"wait"}, Stdout: io.Discard}
	errs := make(chan error, 1)
	go func() { errs <- podexec.Run(t.Context(), c, opts) }()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case <-started:
	case err := <-errs:
		t.Fatalf("the stream did not start: %v", err)
	}
	if err := cp.APIServer().Restart(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		var se *podexec.StreamError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v, want a StreamError", err)
		}
	case <-ctx.Done():
		t.Fatal("the stream outlived the API server")
	}
	var stdout bytes.Buffer
	opts.Command, opts.Stdout = []string{"echo", "again"}, &stdout
	if err := podexec.Run(ctx, c, opts); err != nil || stdout.String() != "again\n" {
		t.Fatalf("after the restart: %v, %q", err, stdout.String())
	}
}

func TestTheSameThroughKubeAPIServersSPDYTranslation(t *testing.T) {
	cp, c, _ := setup(t)
	k := kubeletstub.StartForTest(t, cp, kubeletstub.Options{NodeName: "translated", Translated: true})
	if _, err := k.CreatePod(t.Context(), c, "default", "translated", ""); err != nil {
		t.Fatal(err)
	}
	base := podexec.Options{Namespace: "default", Pod: "translated"}

	var stdout, stderr bytes.Buffer
	opts := base
	opts.Command, opts.Stdout, opts.Stderr = []string{"report", "to-out", "to-err", "3"}, &stdout, &stderr
	var exit *podexec.ExitError
	if err := podexec.Run(t.Context(), c, opts); !errors.As(err, &exit) || exit.Code != 3 || stdout.String() != "to-out" || stderr.String() != "to-err" {
		t.Fatalf("report: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}

	stdout.Reset()
	opts = base
	opts.Command, opts.Stdin, opts.Stdout = []string{"cat"}, strings.NewReader("half-closed\n"), &stdout
	if err := podexec.Run(t.Context(), c, opts); err != nil || stdout.String() != "half-closed\n" {
		t.Fatalf("cat: %v, stdout %q", err, stdout.String())
	}

	stdout.Reset()
	sizes := make(chan podexec.Size, 1)
	sizes <- podexec.Size{Width: 100, Height: 30}
	opts = base
	opts.Command, opts.TTY, opts.Resize, opts.Stdout = []string{"sizes", "1"}, true, sizes, &stdout
	if err := podexec.Run(t.Context(), c, opts); err != nil || stdout.String() != "100x30\n" {
		t.Fatalf("sizes: %v, stdout %q", err, stdout.String())
	}
}

// BenchmarkExecRoundTrip is the latency of one exec of a command that
// prints a line, through kube-apiserver and the stand-in: upgrade,
// handshake, output, result.
func BenchmarkExecRoundTrip(b *testing.B) {
	cp, k := kubeletstub.Shared(b)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := k.CreatePod(b.Context(), c, "default", "bench-exec", ""); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	opts := podexec.Options{Namespace: "default", Pod: "bench-exec", Command: []string{"echo", "hi"}}
	for b.Loop() {
		var out bytes.Buffer
		opts.Stdout = &out
		if err := podexec.Run(b.Context(), c, opts); err != nil || out.String() != "hi\n" {
			b.Fatalf("%v %q", err, out.String())
		}
	}
}

// BenchmarkStdinEchoRoundTrip is the latency of one byte sent on stdin of
// an open session (cat) until it comes back on stdout.
func BenchmarkStdinEchoRoundTrip(b *testing.B) {
	cp, k := kubeletstub.Shared(b)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := k.CreatePod(b.Context(), c, "default", "bench-echo", ""); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- podexec.Run(b.Context(), c, podexec.Options{Namespace: "default", Pod: "bench-echo", Command: []string{"cat"}, Stdin: inR, Stdout: outW})
		_ = outW.Close()
	}()
	one := []byte{'x'}
	got := make([]byte, 1)
	for b.Loop() {
		if _, err := inW.Write(one); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(outR, got); err != nil {
			b.Fatal(err)
		}
	}
	_ = inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func TestAStandInThatDiesMidStreamIsAStreamError(t *testing.T) {
	cp, c, _ := setup(t)
	started := make(chan struct{}, 1)
	k := kubeletstub.StartForTest(t, cp, kubeletstub.Options{
		NodeName: "dying-stand-in",
		Run: func(ctx context.Context, p *kubeletstub.Process) error {
			_, _ = io.WriteString(p.Stdout, "before\n")
			started <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if _, err := k.CreatePod(t.Context(), c, "default", "dying", ""); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	errs := make(chan error, 1)
	go func() {
		errs <- podexec.Run(t.Context(), c, podexec.Options{Namespace: "default", Pod: "dying", Command: []string{"x"}, Stdout: &stdout})
	}()
	<-started
	_ = k.Close() // drops every connection, without a result
	select {
	case err := <-errs:
		var se *podexec.StreamError
		if hangUpLooksLikeSuccess(t, cp) {
			if err != nil {
				t.Fatalf("err = %v, want nil (what this server reports)", err)
			}
		} else if !errors.As(err, &se) {
			t.Fatalf("err = %v, want a StreamError", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the stream outlived the stand-in")
	}
	if stdout.String() != "before\n" {
		t.Fatalf("stdout %q", stdout.String())
	}
}
