package fleet_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

// writeKubeconfig writes a kubeconfig with one context per entry of
// servers (context name → server port) to path.
func writeKubeconfig(t *testing.T, path string, servers map[string]int) {
	t.Helper()
	f := &kubeconfig.File{Clusters: map[string]*kubeconfig.Cluster{}, Users: map[string]*kubeconfig.User{}, Contexts: map[string]*kubeconfig.Context{}}
	for name, port := range servers {
		one := kubeconfig.FromRESTConfig(&rest.Config{Host: fmt.Sprintf("https://127.0.0.1:%d", port), BearerToken: "t-" + name}, name, "")
		f.Clusters[name], f.Users[name], f.Contexts[name] = one.Clusters[name], one.Users[name], one.Contexts[name]
	}
	data, err := kubeconfig.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The provider reads its file again every PollInterval and follows its
// contexts: added, changed (replaced), removed; an unchanged file changes
// nothing, and an unreadable one keeps the clusters until it is fixed.
func TestKubeconfigProviderWatchesItsFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		contexts []string
		rewrite  func(t *testing.T, path string)
		want     []string // after the initial adds of a (6441) and b (6442)
	}{
		{name: "an unchanged file changes nothing", rewrite: func(t *testing.T, path string) {
			writeKubeconfig(t, path, map[string]int{"a": 6441, "b": 6442})
		}},
		{name: "contexts added, changed and removed", rewrite: func(t *testing.T, path string) {
			writeKubeconfig(t, path, map[string]int{"a": 6451, "c": 6443})
		}, want: []string{"replace a https://127.0.0.1:6451", "add c https://127.0.0.1:6443", "remove b"}},
		{name: "only the chosen contexts are followed", contexts: []string{"a", "b"}, rewrite: func(t *testing.T, path string) {
			writeKubeconfig(t, path, map[string]int{"a": 6441, "c": 6443})
		}, want: []string{"remove b"}},
		{name: "an unreadable file keeps the clusters", rewrite: func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("clusters: [[["), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a deleted file keeps the clusters", rewrite: func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubeconfig")
			writeKubeconfig(t, path, map[string]int{"a": 6441, "b": 6442})
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				var set recordSet
				done := make(chan error, 1)
				go func() {
					done <- fleet.Kubeconfig{Path: path, Contexts: tc.contexts, PollInterval: 10 * time.Second,
						Logger: slog.New(slog.DiscardHandler)}.Run(ctx, &set)
				}()
				synctest.Wait()
				initial := []string{"add a https://127.0.0.1:6441", "add b https://127.0.0.1:6442"}
				if got := set.get(); !slices.Equal(got, initial) {
					t.Fatalf("ops at start = %q, want %q", got, initial)
				}
				tc.rewrite(t, path)
				time.Sleep(9 * time.Second)
				synctest.Wait()
				if got := set.get(); !slices.Equal(got, initial) {
					t.Fatalf("ops before the poll = %q, want %q", got, initial)
				}
				time.Sleep(time.Second)
				synctest.Wait()
				want := append(slices.Clone(initial), tc.want...)
				if got := set.get(); !slices.Equal(got, want) {
					t.Fatalf("ops after the poll = %q, want %q", got, want)
				}
				time.Sleep(30 * time.Second) // later polls of the same file change nothing more
				synctest.Wait()
				if got := set.get(); !slices.Equal(got, want) {
					t.Fatalf("ops after more polls = %q, want %q", got, want)
				}
				cancel()
				if err := <-done; err != nil {
					t.Fatalf("Run = %v", err)
				}
			})
		})
	}
}

// A file fixed after it was unreadable is followed again.
func TestKubeconfigProviderFollowsAFixedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	writeKubeconfig(t, path, map[string]int{"a": 6441})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var set recordSet
		done := make(chan error, 1)
		go func() {
			done <- fleet.Kubeconfig{Path: path, Logger: slog.New(slog.DiscardHandler)}.Run(ctx, &set)
		}()
		synctest.Wait()
		if err := os.WriteFile(path, []byte("not: [a kubeconfig"), 0o600); err != nil {
			t.Fatal(err)
		}
		time.Sleep(fleet.DefaultPollInterval)
		synctest.Wait()
		writeKubeconfig(t, path, map[string]int{"b": 6442})
		time.Sleep(fleet.DefaultPollInterval)
		synctest.Wait()
		want := []string{"add a https://127.0.0.1:6441", "add b https://127.0.0.1:6442", "remove a"}
		if got := set.get(); !slices.Equal(got, want) {
			t.Fatalf("ops = %q, want %q", got, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
	})
}
