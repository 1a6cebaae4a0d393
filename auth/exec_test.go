package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/auth"
)

// plugin is a fake Runner that answers with the ExecCredential built by
// answer and records each Command.
type plugin struct {
	mu     sync.Mutex
	cmds   []auth.Command
	answer func(n int) (stdout, stderr string, err error)
}

func (p *plugin) Run(ctx context.Context, c auth.Command) ([]byte, []byte, error) {
	p.mu.Lock()
	p.cmds = append(p.cmds, c)
	n := len(p.cmds)
	p.mu.Unlock()
	out, errOut, err := p.answer(n)
	return []byte(out), []byte(errOut), err
}

func (p *plugin) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.cmds)
}

func cred(apiVersion, token string, exp time.Time) string {
	status := map[string]any{"token": token}
	if !exp.IsZero() {
		status["expirationTimestamp"] = exp.Format(time.RFC3339)
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "ExecCredential", "status": status})
	return string(b)
}

func v1Config() auth.ExecConfig {
	return auth.ExecConfig{Command: "plugin", APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveNever}
}

func TestExecCachesUntilExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &plugin{answer: func(n int) (string, string, error) {
			return cred(auth.ExecAPIV1, fmt.Sprintf("tok-%d", n), time.Now().Add(time.Minute)), "", nil
		}}
		ex, err := auth.NewExec(auth.ExecOptions{Config: v1Config(), Runner: p, Environ: func() []string { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		srv := &server{accept: "tok-1"}
		rt := ex.WrapTransport(srv)
		for range 3 {
			if code := get(t, rt); code != 200 {
				t.Fatalf("code %d", code)
			}
		}
		if p.count() != 1 {
			t.Fatalf("runs = %d before expiry, want 1", p.count())
		}
		time.Sleep(time.Minute)
		srv.setAccept("tok-2")
		if code := get(t, rt); code != 200 || p.count() != 2 {
			t.Fatalf("after expiry: code %d runs %d; want 200 and 2 runs", code, p.count())
		}
	})
}

func TestExecReRunsOnceOn401(t *testing.T) {
	p := &plugin{answer: func(n int) (string, string, error) {
		return cred(auth.ExecAPIV1beta1, fmt.Sprintf("tok-%d", n), time.Time{}), "", nil
	}}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: auth.ExecConfig{Command: "p", APIVersion: auth.ExecAPIV1beta1}, Runner: p})
	srv := &server{accept: "tok-2"}
	rt := ex.WrapTransport(srv)
	if code := get(t, rt); code != 200 {
		t.Fatalf("code %d, want 200 after a re-run", code)
	}
	if p.count() != 2 || len(srv.seen) != 2 {
		t.Fatalf("runs %d sends %d, want 2 and 2", p.count(), len(srv.seen))
	}
	// A server that rejects every token: one re-run per 401, no loop.
	srv.setAccept("nothing")
	if code := get(t, rt); code != 401 {
		t.Fatalf("code %d, want 401", code)
	}
	if p.count() != 3 || len(srv.seen) != 4 {
		t.Fatalf("runs %d sends %d, want 3 and 4", p.count(), len(srv.seen))
	}
}

func TestExecConcurrentRequestsShareOneRun(t *testing.T) {
	var started sync.WaitGroup
	release := make(chan struct{})
	p := &plugin{answer: func(n int) (string, string, error) {
		<-release
		return cred(auth.ExecAPIV1, "tok", time.Time{}), "", nil
	}}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: v1Config(), Runner: p})
	rt := ex.WrapTransport(&server{accept: "tok"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			req, _ := http.NewRequest("GET", "https://x.invalid/", nil)
			resp, err := rt.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	started.Wait()
	close(release)
	wg.Wait()
	if p.count() != 1 {
		t.Fatalf("runs = %d, want 1", p.count())
	}
}

func TestExecEnvironmentAndExecInfo(t *testing.T) {
	p := &plugin{answer: func(int) (string, string, error) { return cred(auth.ExecAPIV1, "t", time.Time{}), "", nil }}
	cfg := v1Config()
	cfg.Args = []string{"get-token", "--cluster", "c1"}
	cfg.Env = []auth.EnvVar{{Name: "FOO", Value: "bar"}}
	cfg.ProvideClusterInfo = true
	cfg.Cluster = &auth.ExecCluster{Server: "https://k:6443", CertificateAuthorityData: []byte("ca"), Config: json.RawMessage(`{"audience":"x"}`)}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: cfg, Runner: p, Environ: func() []string { return []string{"PATH=/bin", "FOO=base"} }})
	if _, err := ex.GetClientCertificate(nil); err != nil {
		t.Fatal(err)
	}
	c := p.cmds[0]
	if c.Path != "plugin" || strings.Join(c.Args, " ") != "get-token --cluster c1" {
		t.Errorf("command %q %q", c.Path, c.Args)
	}
	if c.Stdin != nil {
		t.Errorf("stdin given to a Never plugin")
	}
	env := strings.Join(c.Env, "\n")
	if !strings.Contains(env, "PATH=/bin\nFOO=base\nFOO=bar\n") {
		t.Errorf("env = %q, want base env then config env", env)
	}
	var info struct {
		APIVersion, Kind string
		Spec             struct {
			Interactive bool
			Cluster     *auth.ExecCluster
		}
	}
	last := c.Env[len(c.Env)-1]
	if !strings.HasPrefix(last, "KUBERNETES_EXEC_INFO=") {
		t.Fatalf("last env %q", last)
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(last, "KUBERNETES_EXEC_INFO=")), &info); err != nil {
		t.Fatal(err)
	}
	if info.APIVersion != auth.ExecAPIV1 || info.Kind != "ExecCredential" || info.Spec.Interactive {
		t.Errorf("exec info %+v", info)
	}
	if info.Spec.Cluster == nil || info.Spec.Cluster.Server != "https://k:6443" || string(info.Spec.Cluster.CertificateAuthorityData) != "ca" || string(info.Spec.Cluster.Config) != `{"audience":"x"}` {
		t.Errorf("cluster info %+v", info.Spec.Cluster)
	}
}

func TestExecInteractiveModes(t *testing.T) {
	stdin := strings.NewReader("")
	tests := []struct {
		name      string
		mode      auth.InteractiveMode
		stdin     io.Reader
		terminal  bool
		wantStdin bool
		wantErr   error
	}{
		{"Never never gets stdin", auth.InteractiveNever, stdin, true, false, nil},
		{"IfAvailable gets a terminal stdin", auth.InteractiveIfAvailable, stdin, true, true, nil},
		{"IfAvailable without a terminal runs like Never", auth.InteractiveIfAvailable, stdin, false, false, nil},
		{"IfAvailable without stdin runs like Never", auth.InteractiveIfAvailable, nil, true, false, nil},
		{"Always gets a terminal stdin", auth.InteractiveAlways, stdin, true, true, nil},
		{"Always without a terminal fails without running", auth.InteractiveAlways, stdin, false, false, auth.ErrInteractiveRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plugin{answer: func(int) (string, string, error) { return cred(auth.ExecAPIV1, "t", time.Time{}), "", nil }}
			cfg := v1Config()
			cfg.InteractiveMode = tt.mode
			ex, _ := auth.NewExec(auth.ExecOptions{Config: cfg, Runner: p, Stdin: tt.stdin, Terminal: func() bool { return tt.terminal }})
			_, err := ex.GetClientCertificate(nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				if p.count() != 0 {
					t.Fatal("plugin ran")
				}
				return
			}
			if got := p.cmds[0].Stdin != nil; got != tt.wantStdin {
				t.Fatalf("stdin given = %v, want %v", got, tt.wantStdin)
			}
			if got := strings.Contains(p.cmds[0].Env[len(p.cmds[0].Env)-1], `"interactive":true`); got != tt.wantStdin {
				t.Fatalf("spec.interactive = %v, want %v", got, tt.wantStdin)
			}
		})
	}
}

func TestExecConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  auth.ExecConfig
	}{
		{"no command", auth.ExecConfig{APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveNever}},
		{"no apiVersion", auth.ExecConfig{Command: "x"}},
		{"unknown apiVersion", auth.ExecConfig{Command: "x", APIVersion: "client.authentication.k8s.io/v1alpha1"}},
		{"v1 without interactiveMode", auth.ExecConfig{Command: "x", APIVersion: auth.ExecAPIV1}},
		{"unknown interactiveMode", auth.ExecConfig{Command: "x", APIVersion: auth.ExecAPIV1beta1, InteractiveMode: "Sometimes"}},
		{"invalid cluster config JSON", auth.ExecConfig{Command: "x", APIVersion: auth.ExecAPIV1beta1, Cluster: &auth.ExecCluster{Config: json.RawMessage("{")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := auth.NewExec(auth.ExecOptions{Config: tt.cfg}); !errors.Is(err, auth.ErrExecConfig) {
				t.Fatalf("err = %v, want ErrExecConfig", err)
			}
		})
	}
}

func TestExecRunErrorsAreTypedAndRedacted(t *testing.T) {
	const secretEnv = "env-secret-value"
	const secretTok = "returned-token-value"
	certPEM, keyPEM := newPair(t, "x")
	tests := []struct {
		name   string
		stdout string
		stderr string
		err    error
		block  bool
		want   error
	}{
		{"missing command shows install hint", "", "", fmt.Errorf("wrap: %w", exec.ErrNotFound), false, auth.ErrExecNotFound},
		{"non-zero exit quotes redacted stderr", "", "login failed for " + secretEnv, &exec.ExitError{}, false, auth.ErrExecFailed},
		{"timeout", "", "", nil, true, auth.ErrExecTimeout},
		{"not JSON", "token: " + secretTok, "", nil, false, auth.ErrExecOutput},
		{"wrong apiVersion", cred(auth.ExecAPIV1beta1, secretTok, time.Time{}), "", nil, false, auth.ErrExecOutput},
		{"wrong kind", `{"apiVersion":"client.authentication.k8s.io/v1","kind":"Nope","status":{"token":"` + secretTok + `"}}`, "", nil, false, auth.ErrExecOutput},
		{"no status", `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}`, "", nil, false, auth.ErrExecOutput},
		{"empty status", `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}`, "", nil, false, auth.ErrExecOutput},
		{"cert without key", mustJSON(map[string]any{"apiVersion": auth.ExecAPIV1, "kind": "ExecCredential", "status": map[string]any{"clientCertificateData": string(certPEM)}}), "", nil, false, auth.ErrExecOutput},
		{"key without cert", mustJSON(map[string]any{"apiVersion": auth.ExecAPIV1, "kind": "ExecCredential", "status": map[string]any{"clientKeyData": string(keyPEM)}}), "", nil, false, auth.ErrExecOutput},
		{"token with newline", mustJSON(map[string]any{"apiVersion": auth.ExecAPIV1, "kind": "ExecCredential", "status": map[string]any{"token": secretTok + "\n" + secretTok}}), "", nil, false, auth.ErrExecOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runner := auth.RunnerFunc(func(ctx context.Context, c auth.Command) ([]byte, []byte, error) {
				if tt.block {
					<-ctx.Done()
					return nil, nil, ctx.Err()
				}
				return []byte(tt.stdout), []byte(tt.stderr), tt.err
			})
			cfg := v1Config()
			cfg.Env = []auth.EnvVar{{Name: "SECRET", Value: secretEnv}}
			cfg.InstallHint = "install it with: brew install plugin"
			ex, _ := auth.NewExec(auth.ExecOptions{Config: cfg, Runner: runner, Timeout: 10 * time.Millisecond})
			_, err := ex.GetClientCertificate(nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var xe *auth.ExecError
			if !errors.As(err, &xe) {
				t.Fatalf("err %T is not *ExecError", err)
			}
			msg := err.Error()
			if strings.Contains(msg, secretEnv) || strings.Contains(msg, secretTok) {
				t.Fatalf("error leaks a secret: %s", msg)
			}
			if tt.want == auth.ErrExecNotFound && !strings.Contains(msg, "brew install plugin") {
				t.Fatalf("error lacks the install hint: %s", msg)
			}
			if tt.stderr != "" && !strings.Contains(msg, "login failed for <redacted>") {
				t.Fatalf("error lacks the redacted stderr: %s", msg)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExecClientCertificateFromPlugin(t *testing.T) {
	certPEM, keyPEM := newPair(t, "from-plugin")
	p := &plugin{answer: func(int) (string, string, error) {
		return mustJSON(map[string]any{"apiVersion": auth.ExecAPIV1, "kind": "ExecCredential", "status": map[string]any{
			"clientCertificateData": string(certPEM), "clientKeyData": string(keyPEM)}}), "", nil
	}}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: v1Config(), Runner: p})
	c, err := ex.GetClientCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cn(t, c) != "from-plugin" {
		t.Fatalf("cn = %s", cn(t, c))
	}
	// No token: requests go out without an Authorization header.
	srv := &server{accept: "x"}
	get(t, ex.WrapTransport(srv))
	if srv.seen[0] != "" {
		t.Fatalf("Authorization = %q, want none", srv.seen[0])
	}
}

func TestExecRealPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := buildPlugin(t)
	countFile := t.TempDir() + "/count"
	cfg := auth.ExecConfig{
		Command: bin, APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveIfAvailable,
		Env: []auth.EnvVar{{Name: "COUNT_FILE", Value: countFile}, {Name: "TTL", Value: "1h"}},
	}
	ex, err := auth.NewExec(auth.ExecOptions{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{accept: "real-1"}
	if code := get(t, ex.WrapTransport(srv)); code != 200 {
		t.Fatalf("code %d (seen %q)", code, srv.seen)
	}
	if ex.Runs() != 1 {
		t.Fatalf("runs %d", ex.Runs())
	}

	// A failing run: stderr is surfaced, secrets redacted.
	cfg.Env = append(cfg.Env, auth.EnvVar{Name: "FAIL", Value: "fail-secret-value"})
	ex2, _ := auth.NewExec(auth.ExecOptions{Config: cfg})
	_, err = ex2.GetClientCertificate(nil)
	if !errors.Is(err, auth.ErrExecFailed) || !strings.Contains(err.Error(), "exit code 3") || !strings.Contains(err.Error(), "refusing <redacted>") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "fail-secret-value") {
		t.Fatalf("leak: %v", err)
	}

	// A missing command.
	cfg.Command = bin + "-missing"
	cfg.InstallHint = "see https://example.com/install"
	ex3, _ := auth.NewExec(auth.ExecOptions{Config: cfg})
	_, err = ex3.GetClientCertificate(nil)
	if !errors.Is(err, auth.ErrExecNotFound) || !strings.Contains(err.Error(), "example.com/install") {
		t.Fatalf("err = %v", err)
	}
}

var (
	pluginOnce sync.Once
	pluginBin  string
	pluginErr  error
	pluginDir  string
)

// buildPlugin compiles testdata/plugin once per test binary.
func buildPlugin(t *testing.T) string {
	t.Helper()
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "kubego-auth-plugin")
		if pluginErr != nil {
			return
		}
		pluginBin = pluginDir + "/plugin"
		out, err := exec.Command("go", "build", "-o", pluginBin, "./testdata/plugin").CombinedOutput()
		if err != nil {
			pluginErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if pluginErr != nil {
		t.Fatal(pluginErr)
	}
	return pluginBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

func BenchmarkExecCachedRoundTrip(b *testing.B) {
	p := &plugin{answer: func(int) (string, string, error) { return cred(auth.ExecAPIV1, "tok", time.Time{}), "", nil }}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: v1Config(), Runner: p})
	rt := ex.WrapTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
	b.ReportAllocs()
	for b.Loop() {
		rt.RoundTrip(req)
	}
}

func TestExecWarnsWhenTheRunAfterA401Fails(t *testing.T) {
	var logs strings.Builder
	p := &plugin{answer: func(n int) (string, string, error) {
		if n > 1 {
			return "", "token service down (secret-arg-value)", errors.New("exit status 1")
		}
		return cred(auth.ExecAPIV1, "tok-1", time.Time{}), "", nil
	}}
	cfg := v1Config()
	cfg.Args = []string{"secret-arg-value"}
	ex, _ := auth.NewExec(auth.ExecOptions{Config: cfg, Runner: p, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if code := get(t, ex.WrapTransport(&server{accept: "tok-2"})); code != 401 {
		t.Fatalf("code %d, want the 401", code)
	}
	out := logs.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "token service down") {
		t.Fatalf("no warning with the plugin's failure:\n%s", out)
	}
	if strings.Contains(out, "secret-arg-value") {
		t.Fatalf("warning leaks an argument:\n%s", out)
	}
}
