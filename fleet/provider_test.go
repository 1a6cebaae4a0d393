package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// recordSet is a fleet.Set that records what a provider asks of it.
type recordSet struct {
	mu    sync.Mutex
	ops   []string // "add name host", "replace name host", "remove name"
	names map[string]bool
}

func (s *recordSet) AddCluster(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names[name] {
		return nil, &fleet.Error{Cluster: name, Err: fleet.ErrDuplicate}
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
	s.ops = append(s.ops, "add "+name+" "+cfg.Host)
	return nil, nil
}

func (s *recordSet) ReplaceCluster(name string, cfg *rest.Config) (*fleet.Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, "replace "+name+" "+cfg.Host)
	return nil, nil
}

func (s *recordSet) RemoveCluster(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.names[name] {
		return &fleet.Error{Cluster: name, Err: fleet.ErrUnknown}
	}
	delete(s.names, name)
	s.ops = append(s.ops, "remove "+name)
	return nil
}

func (s *recordSet) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// threeContexts is a kubeconfig with contexts a, b and c, each on its own
// server.
func threeContexts() *kubeconfig.File {
	f := &kubeconfig.File{Clusters: map[string]*kubeconfig.Cluster{}, Users: map[string]*kubeconfig.User{}, Contexts: map[string]*kubeconfig.Context{}}
	for i, name := range []string{"c", "a", "b"} {
		one := kubeconfig.FromRESTConfig(&rest.Config{Host: fmt.Sprintf("https://127.0.0.1:%d", 6440+i), BearerToken: "t-" + name}, name, "")
		f.Clusters[name], f.Users[name], f.Contexts[name] = one.Clusters[name], one.Users[name], one.Contexts[name]
	}
	f.CurrentContext = "a"
	return f
}

func TestKubeconfigProvider(t *testing.T) {
	for _, tc := range []struct {
		name     string
		contexts []string
		want     []string
		wantErr  error
	}{
		{"every context, in name order", nil, []string{"add a https://127.0.0.1:6441", "add b https://127.0.0.1:6442", "add c https://127.0.0.1:6440"}, nil},
		{"the chosen contexts", []string{"c", "b"}, []string{"add c https://127.0.0.1:6440", "add b https://127.0.0.1:6442"}, nil},
		{"a missing context is an error", []string{"b", "nope"}, []string{"add b https://127.0.0.1:6442"}, kubeconfig.ErrContextNotFound},
		{"a name held is an error", []string{"a", "a"}, []string{"add a https://127.0.0.1:6441"}, fleet.ErrDuplicate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // Run adds, then returns at once
			var set recordSet
			err := fleet.Kubeconfig{File: threeContexts(), Contexts: tc.contexts}.Run(ctx, &set)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("Run = %v, want %v", err, tc.wantErr)
			}
			if got := set.get(); !slices.Equal(got, tc.want) {
				t.Fatalf("ops = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKubeconfigProviderNeedsAFile(t *testing.T) {
	if err := (fleet.Kubeconfig{}).Run(t.Context(), &recordSet{}); !errors.Is(err, fleet.ErrInvalid) {
		t.Fatalf("Run without Path or File = %v, want ErrInvalid", err)
	}
	if err := (fleet.Kubeconfig{Path: t.TempDir() + "/missing"}).Run(t.Context(), &recordSet{}); err == nil {
		t.Fatal("Run of a missing file succeeded")
	}
}

func kubeconfigSecret(t *testing.T, name, host string, labels map[string]string) *corev1.Secret {
	t.Helper()
	data, err := kubeconfig.Marshal(kubeconfig.FromRESTConfig(&rest.Config{Host: host, BearerToken: "t"}, "ctx", ""))
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: name, Labels: labels},
		Data: map[string][]byte{fleet.SecretKey: data}}
}

// The Secrets provider adds a cluster per labelled kubeconfig Secret,
// replaces it when the kubeconfig changes (and only then), skips a Secret
// it cannot use, and removes the cluster with its Secret.
func TestSecretsProviderFollowsTheSecrets(t *testing.T) {
	ctx := t.Context()
	hub := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}})
	defer hub.Close()
	hc, err := client.NewForConfig(hub.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := client.Typed[*corev1.Secret](hc).Namespace("fleet")
	labels := map[string]string{fleet.SecretLabel: "true"}
	var set recordSet
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- fleet.Secrets{Client: hc, Namespace: "fleet", Logger: kubegotest.Logger(t, nil)}.Run(runCtx, &set)
	}()
	want := func(ops ...string) {
		t.Helper()
		kubegotest.Eventually(ctx, t, func(context.Context) error {
			if got := set.get(); !slices.Equal(got, ops) {
				return fmt.Errorf("ops = %q, want %q", got, ops)
			}
			return nil
		})
	}

	if _, err := secrets.Create(ctx, kubeconfigSecret(t, "east", "https://east:6443", labels), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.Create(ctx, kubeconfigSecret(t, "unlabelled", "https://x:6443", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want("add east https://east:6443")

	// A change of something else than the kubeconfig replaces nothing.
	s, err := secrets.Get(ctx, "east", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Annotations = map[string]string{"note": "x"}
	if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// An unusable kubeconfig is skipped.
	bad := kubeconfigSecret(t, "broken", "", labels)
	bad.Data[fleet.SecretKey] = []byte("clusters: [")
	if _, err := secrets.Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A kubeconfig that would read a local file (or run a plugin) is
	// refused.
	local := kubeconfigSecret(t, "local", "", labels)
	data, err := kubeconfig.Marshal(kubeconfig.FromRESTConfig(&rest.Config{Host: "https://evil:6443", BearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token"}, "ctx", ""))
	if err != nil {
		t.Fatal(err)
	}
	local.Data[fleet.SecretKey] = data
	if _, err := secrets.Create(ctx, local, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A new kubeconfig replaces the cluster.
	s, err = secrets.Get(ctx, "east", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data = kubeconfigSecret(t, "east", "https://east2:6443", labels).Data
	if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want("add east https://east:6443", "replace east https://east2:6443")

	if err := secrets.Delete(ctx, "east", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("add east https://east:6443", "replace east https://east2:6443", "remove east")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

func TestSecretsProviderNeedsAClient(t *testing.T) {
	if err := (fleet.Secrets{}).Run(t.Context(), &recordSet{}); !errors.Is(err, fleet.ErrInvalid) {
		t.Fatalf("Run without a Client = %v, want ErrInvalid", err)
	}
}
