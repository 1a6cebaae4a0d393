package faults_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// Hostile 4b: a server that answers a LIST and a WATCH of namespace a with
// objects of namespace b as well gets none of them into a cache of a,
// whichever path built the informer: informer.New over a client's
// namespaced ListerWatcher (typed, unstructured, metadata), a Factory
// (typed, unstructured) and a Reader.
func TestHostileForeignNamespace(t *testing.T) {
	configmaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	mapping := client.Mapping{Resource: configmaps, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Namespaced: true}
	type built struct {
		keys    func() []string
		refused func() int
		run     func(ctx context.Context) // blocks until the informer stops
		sync    func(ctx context.Context) error
	}
	fromInformer := func(inf interface {
		Run(context.Context) error
		WaitForSync(context.Context) error
		Refused() (int, error)
	}, keys func() []string) built {
		return built{keys: keys, refused: func() int { n, _ := inf.Refused(); return n }, run: func(ctx context.Context) { _ = inf.Run(ctx) }, sync: inf.WaitForSync}
	}
	fromFactory := func(f *informer.Factory, b built) built {
		b.run = func(ctx context.Context) { f.Start(ctx); <-ctx.Done(); f.Wait() }
		b.sync = f.WaitForSync
		return b
	}
	reflector := informer.ReflectorOptions{DisableStreaming: true, Backoff: backoffQuick}
	for _, tt := range []struct {
		name  string
		build func(t *testing.T, c *client.Client, cfg *rest.Config) built
	}{
		{"informer.New typed", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			inf := informer.New(client.Typed[*corev1.ConfigMap](c).Namespace("a").ListerWatcher(), informer.Options[*corev1.ConfigMap]{Reflector: reflector})
			return fromInformer(inf, func() []string { return storeKeys(inf) })
		}},
		{"informer.New unstructured", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			lw := client.TypedMapping[*unstructured.Unstructured](c, mapping).Namespace("a").ListerWatcher()
			inf := informer.New(lw, informer.Options[*unstructured.Unstructured]{Reflector: reflector})
			return fromInformer(inf, func() []string { return storeKeys(inf) })
		}},
		{"informer.New metadata", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			lw := client.TypedMapping[*metav1.PartialObjectMetadata](c, mapping).Namespace("a").ListerWatcher()
			inf := informer.New(lw, informer.Options[*metav1.PartialObjectMetadata]{Reflector: reflector})
			return fromInformer(inf, func() []string { return storeKeys(inf) })
		}},
		{"informer.New over an erased ListerWatcher", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			lw := informer.Erase(client.Typed[*corev1.ConfigMap](c).Namespace("a").ListerWatcher())
			inf := informer.New(lw, informer.Options[informer.Object]{Reflector: reflector})
			return fromInformer(inf, func() []string { return storeKeys(inf) })
		}},
		{"Factory typed", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			f := quickFactory(t, c, false)
			inf := acquired[*corev1.ConfigMap](t)(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "a"}))
			return fromFactory(f, fromInformer(inf, func() []string { return storeKeys(inf) }))
		}},
		{"Factory unstructured", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			f := quickFactory(t, c, false)
			inf := acquired[*unstructured.Unstructured](t)(informer.AcquireResource(f, configmaps, informer.SharedOptions{Namespace: "a"}))
			return fromFactory(f, fromInformer(inf, func() []string { return storeKeys(inf) }))
		}},
		{"Reader", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			f := quickFactory(t, c, false)
			if err := f.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: "a"})); err != nil {
				t.Fatal(err)
			}
			if _, err := informer.NewReader[*corev1.ConfigMap](f, informer.ReaderOptions{}); err != nil {
				t.Fatal(err)
			}
			inf := acquired[*corev1.ConfigMap](t)(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{})) // the Reader's
			return fromFactory(f, fromInformer(inf, func() []string { return storeKeys(inf) }))
		}},
		{"fleet Cluster", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			cl, err := fleet.New("c", cfg, fleet.Options{
				Informers:    informer.FactoryOptions{Reflector: reflector},
				Declarations: []informer.Declaration{informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: "a"})},
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := informer.NewReader[*corev1.ConfigMap](cl, informer.ReaderOptions{}); err != nil {
				t.Fatal(err)
			}
			inf := acquired[*corev1.ConfigMap](t)(informer.Acquire[*corev1.ConfigMap](cl.Factory(), informer.SharedOptions{}))
			b := fromInformer(inf, func() []string { return storeKeys(inf) })
			// Stopped at cleanup: Stop frees the caches the test reads.
			b.run = func(ctx context.Context) { _ = cl.Start(ctx); <-ctx.Done() }
			t.Cleanup(func() { _ = cl.Stop() })
			b.sync = cl.WaitForSync
			return b
		}},
		{"Factory over a Backend of namespaced ListerWatchers", func(t *testing.T, c *client.Client, cfg *rest.Config) built {
			// A Backend that ignores the target's namespace and hands out
			// the client's ListerWatcher for namespace a.
			backend := informer.BackendFunc(func(ctx context.Context, _ informer.Target) (informer.ListerWatcher[informer.Object], error) {
				return informer.Erase(client.Typed[*corev1.ConfigMap](c).Namespace("a").ListerWatcher()), nil
			})
			f := informer.NewFactory(backend, informer.FactoryOptions{Reflector: reflector})
			inf := acquired[*corev1.ConfigMap](t)(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{}))
			return fromFactory(f, fromInformer(inf, func() []string { return storeKeys(inf) }))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list := []string{cm("a", "one", "5"), cm("b", "listed", "6")}
			events := []string{cm("b", "watched", "11"), cm("a", "two", "12")}
			var hs *hostile
			hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				if !isWatch(r) {
					writeList(w, "10", list...)
					return
				}
				send := startWatch(w)
				for _, e := range events {
					send("ADDED", e)
				}
				hs.hang(r)
			})
			cfg := hs.config(nil)
			b := tt.build(t, hostileClient(t, cfg), cfg)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				b.run(ctx)
			}()
			if err := b.sync(ctx); err != nil {
				t.Fatal(err)
			}
			waitFor(ctx, func() bool { return slices.Contains(b.keys(), "a/two") })
			// Both foreign objects came before a/two.
			cancel()
			<-done
			if got, want := strings.Join(b.keys(), " "), "a/one a/two"; got != want {
				t.Errorf("the cache of namespace a holds %s, want %s", got, want)
			}
			if n := b.refused(); n != 2 {
				t.Errorf("refused %d objects, want 2 (one listed, one watched)", n)
			}
		})
	}
}

// acquired fails t when a factory refuses an informer, else returns it:
// acquired(t)(informer.Acquire[T](f, opts)).
func acquired[T informer.Object](t *testing.T) func(*informer.Informer[T], error) *informer.Informer[T] {
	return func(inf *informer.Informer[T], err error) *informer.Informer[T] {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return inf
	}
}
