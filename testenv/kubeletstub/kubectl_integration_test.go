package kubeletstub_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/testenv/kubeletstub"
)

func TestMain(m *testing.M) { kubeletstub.Main(m) }

// standIns returns the shared stand-in (WebSocket streams handed to it) and
// one that kube-apiserver translates to SPDY for, each with a Pod.
func standIns(t *testing.T) (*testenv.ControlPlane, map[string]string) {
	t.Helper()
	cp, shared := kubeletstub.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	translated := kubeletstub.StartForTest(t, cp, kubeletstub.Options{NodeName: "translated-" + strings.ToLower(t.Name()), Translated: true})
	pods := map[string]string{"websocket": "kubectl-ws-" + strings.ToLower(t.Name()), "translated": "kubectl-spdy-" + strings.ToLower(t.Name())}
	if _, err := shared.CreatePod(t.Context(), c, "default", pods["websocket"], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := translated.CreatePod(t.Context(), c, "default", pods["translated"], ""); err != nil {
		t.Fatal(err)
	}
	return cp, pods
}

func kubectl(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	return path
}

func TestKubectlExecWorksAgainstTheStandIn(t *testing.T) {
	bin := kubectl(t)
	cp, pods := standIns(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := cp.WriteKubeconfig(kc); err != nil {
		t.Fatal(err)
	}
	for mode, pod := range pods {
		t.Run(mode, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(t.Context(), bin, "--kubeconfig", kc, "exec", "-n", "default", pod, "--", "report", "to-out", "to-err", "3")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("kubectl exec: %v (stderr %q), want exit code 3", err, stderr.String())
			}
			if stdout.String() != "to-out" || !strings.HasPrefix(withoutKlog(stderr.String()), "to-err") {
				t.Fatalf("stdout %q stderr %q", stdout.String(), stderr.String())
			}

			stdout.Reset()
			stderr.Reset()
			cmd = exec.CommandContext(t.Context(), bin, "--kubeconfig", kc, "exec", "-i", "-n", "default", pod, "--", "cat")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("through kubectl\n"), &stdout, &stderr
			if err := cmd.Run(); err != nil || stdout.String() != "through kubectl\n" {
				t.Fatalf("kubectl exec -i cat: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
			}
		})
	}
}

// klogLine matches a diagnostic line kubectl writes to its own stderr
// (severity letter, month and day, time), e.g. kubectl 1.32's
// "E1202 15:58:48.057265  486 websocket.go:296] Unknown stream id 1,
// discarding message": its WebSocket reader could start before the streams
// were registered and log an early frame it dropped. What the command wrote
// is still compared in full.
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [^\]]+\] [^\n]*\n`)

// withoutKlog returns s without kubectl's own diagnostic lines.
func withoutKlog(s string) string { return klogLine.ReplaceAllString(s, "") }

var forwarding = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)

// KubectlPortForward runs kubectl port-forward to port of pod and returns
// the local address it listens on; the process ends with the test.
func KubectlPortForward(t testing.TB, bin, kubeconfig, pod string, port uint16) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", kubeconfig, "port-forward", "-n", "default", "pod/"+pod, fmt.Sprintf(":%d", port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		wg.Wait()
	})
	lines := bufio.NewScanner(out)
	addr := make(chan string, 1)
	wg.Go(func() {
		for lines.Scan() {
			if m := forwarding.FindStringSubmatch(lines.Text()); m != nil {
				select {
				case addr <- "127.0.0.1:" + m[1]:
				default:
				}
			}
		}
	})
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl port-forward did not start: %s", stderr.String())
		return ""
	}
}

func TestKubectlPortForwardWorksAgainstTheStandIn(t *testing.T) {
	bin := kubectl(t)
	cp, pods := standIns(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := cp.WriteKubeconfig(kc); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = io.Copy(conn, conn)
			}()
		}
	}()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	for mode, pod := range pods {
		t.Run(mode, func(t *testing.T) {
			addr := KubectlPortForward(t, bin, kc, pod, port)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			msg := bytes.Repeat([]byte("kubectl "), 100_000)
			go func() { _, _ = conn.Write(msg) }()
			got := make([]byte, len(msg))
			_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("echo through kubectl port-forward: %v", err)
			}
		})
	}
}
