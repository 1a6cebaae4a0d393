package portforward_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/portforward"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/testenv/kubeletstub"
)

const nobodyToken = "nobody-token"

func TestMain(m *testing.M) {
	kubeletstub.MainWith(m, testenv.Options{StaticTokens: []testenv.StaticToken{{Token: nobodyToken, User: "nobody"}}})
}

var podNames = regexp.MustCompile(`[^a-z0-9]+`)

func setup(t testing.TB) (*testenv.ControlPlane, *rest.Client, portforward.Target) {
	t.Helper()
	cp, k := kubeletstub.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Trim(podNames.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 60 {
		name = strings.Trim(name[len(name)-60:], "-")
	}
	// A benchmark run again (-count) finds its Pod.
	if _, err := k.CreatePod(context.Background(), c, "default", name, ""); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return cp, c, portforward.Target{Namespace: "default", Pod: name}
}

// echoServer is the TCP service "in the Pod": it sends back what it reads.
func echoServer(t testing.TB) uint16 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				_, _ = io.Copy(conn, conn)
			})
		}
	})
	return uint16(ln.Addr().(*net.TCPAddr).Port)
}

// roundTrip writes size random bytes to conn while reading the echo, and
// checks it.
func roundTrip(conn io.ReadWriter, size int, seed uint64) error {
	rng := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	sent := sha256.New()
	errc := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		left := size
		for left > 0 {
			n := min(left, len(buf))
			_, _ = rng.Read(buf[:n])
			sent.Write(buf[:n])
			if _, err := conn.Write(buf[:n]); err != nil {
				errc <- err
				return
			}
			left -= n
		}
		errc <- nil
	}()
	got := sha256.New()
	if _, err := io.CopyN(got, conn, int64(size)); err != nil {
		return fmt.Errorf("reading the echo: %w", err)
	}
	if err := <-errc; err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	if !bytes.Equal(sent.Sum(nil), got.Sum(nil)) {
		return errors.New("the echo differs from what was sent")
	}
	return nil
}

func TestDialCarriesDataBothWays(t *testing.T) {
	_, c, target := setup(t)
	port := echoServer(t)
	conn, err := portforward.Dial(t.Context(), c, target, port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := roundTrip(conn, 1<<20, 1); err != nil {
		t.Fatal(err)
	}
}

// TestMegabytesThroughOneConnectionArriveIntact sends 16 MiB each way
// through one connection; KUBEGO_PORTFORWARD_MIB changes the size (make
// test-portforward sends 100 MiB, without -race, under which it is slow).
func TestMegabytesThroughOneConnectionArriveIntact(t *testing.T) {
	mib := 16
	if v := os.Getenv("KUBEGO_PORTFORWARD_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("KUBEGO_PORTFORWARD_MIB=%q: want a positive number", v)
		}
		mib = n
	}
	_, c, target := setup(t)
	port := echoServer(t)
	conn, err := portforward.Dial(t.Context(), c, target, port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if err := roundTrip(conn, mib<<20, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d MiB each way in %v", mib, time.Since(start))
}

func TestOneHundredConcurrentConnectionsThroughOneForward(t *testing.T) {
	_, c, target := setup(t)
	port := echoServer(t)
	f, err := portforward.Start(t.Context(), c, portforward.Options{Target: target, Ports: []portforward.Port{{Remote: port}}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", f.Local(port))
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			if err := roundTrip(conn, 256<<10, uint64(i)); err != nil {
				errs <- fmt.Errorf("connection %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSeveralPortsAreForwardedAndCloseEndsConnections(t *testing.T) {
	_, c, target := setup(t)
	p1, p2 := echoServer(t), echoServer(t)
	f, err := portforward.Start(t.Context(), c, portforward.Options{Target: target, Ports: []portforward.Port{{Remote: p1}, {Remote: p2}}})
	if err != nil {
		t.Fatal(err)
	}
	var open []net.Conn
	for _, p := range []uint16{p1, p2} {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.Local(p)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := roundTrip(conn, 1000, uint64(p)); err != nil {
			t.Fatal(err)
		}
		open = append(open, conn)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, conn := range open {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("read after Close = %v, want io.EOF", err)
		}
	}
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.Local(p1))); err == nil {
		t.Fatal("still listening after Close")
	}
}

func TestNothingListeningInThePodIsARemoteError(t *testing.T) {
	_, c, target := setup(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	conn, err := portforward.Dial(t.Context(), c, target, port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.Read(make([]byte, 10))
	var re *portforward.RemoteError
	if !errors.As(err, &re) || re.Port != port {
		t.Fatalf("err = %v, want a RemoteError for port %d", err, port)
	}
}

func TestCancellingTheContextClosesTheConnection(t *testing.T) {
	_, c, target := setup(t)
	port := echoServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	conn, err := portforward.Dial(ctx, c, target, port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := conn.Read(make([]byte, 10)); err == nil {
		t.Fatal("Read succeeded after the context was cancelled")
	}
}

func TestNoPermissionIsA403WithTheCause(t *testing.T) {
	cp, _, target := setup(t)
	c, err := rest.NewClient(cp.TokenConfig(nobodyToken))
	if err != nil {
		t.Fatal(err)
	}
	_, err = portforward.Dial(t.Context(), c, target, 80)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "pods/portforward") {
		t.Fatalf("err = %v, want 403 naming pods/portforward", err)
	}
}

// echoRoundTrip writes data to conn while reading the echo into buf, and
// checks it: the benchmarks' measure, with no hashing in the way.
func echoRoundTrip(conn io.ReadWriter, data, buf []byte) error {
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Write(data)
		errc <- err
	}()
	if _, err := io.ReadFull(conn, buf); err != nil {
		return err
	}
	if err := <-errc; err != nil {
		return err
	}
	if !bytes.Equal(data, buf) {
		return errors.New("the echo differs")
	}
	return nil
}

const benchChunk = 16 << 20

func benchData() []byte {
	data := make([]byte, benchChunk)
	_, _ = rand.NewChaCha8([32]byte{9}).Read(data)
	return data
}

// BenchmarkThroughput is port-forward throughput through kube-apiserver
// and the stand-in, on one connection, data echoed (b.SetBytes counts one
// way).
func BenchmarkThroughput(b *testing.B) {
	_, c, target := setup(b)
	port := echoServer(b)
	conn, err := portforward.Dial(b.Context(), c, target, port)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	data, buf := benchData(), make([]byte, benchChunk)
	b.SetBytes(benchChunk)
	for b.Loop() {
		if err := echoRoundTrip(conn, data, buf); err != nil {
			b.Fatal(err)
		}
	}
}

var forwarding = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)

// BenchmarkKubectlThroughput is BenchmarkThroughput through a kubectl
// port-forward process on the same stand-in, for comparison.
func BenchmarkKubectlThroughput(b *testing.B) {
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		b.Skip("kubectl is not installed")
	}
	cp, _, target := setup(b)
	port := echoServer(b)
	kc := filepath.Join(b.TempDir(), "kubeconfig")
	if err := cp.WriteKubeconfig(kc); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", kc, "port-forward", "-n", target.Namespace, "pod/"+target.Pod, fmt.Sprintf(":%d", port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(out)
	addr := ""
	for addr == "" && lines.Scan() {
		if m := forwarding.FindStringSubmatch(lines.Text()); m != nil {
			addr = "127.0.0.1:" + m[1]
		}
	}
	if addr == "" {
		b.Fatal("kubectl port-forward did not start")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	data, buf := benchData(), make([]byte, benchChunk)
	b.SetBytes(benchChunk)
	for b.Loop() {
		if err := echoRoundTrip(conn, data, buf); err != nil {
			b.Fatal(err)
		}
	}
}
