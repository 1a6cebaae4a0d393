package faults_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// Hostile 1: watch requests that never get response headers (a wedged
// proxy). The informer must not wait for them forever: with streaming on
// it falls back to LIST and syncs; with streaming off it gives up on the
// wedged watches and takes the events of the next one that answers.
func TestHostileWatchHeadersNeverCome(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var watches atomic.Int32
			var hs *hostile
			hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case !isWatch(r):
					writeList(w, "10", cm("a", "one", "5"))
				case r.URL.Query().Get("sendInitialEvents") == "true" || watches.Add(1) <= 2:
					hs.hang(r)
				default:
					send := startWatch(w)
					send("ADDED", cm("a", "two", "11"))
					hs.hang(r)
				}
			})
			cfg := hs.config(nil)
			withHeaderTimeout(cfg, 200*time.Millisecond)
			f := quickFactory(t, hostileClient(t, cfg), streaming)
			inf, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "a"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			start := time.Now()
			f.Start(ctx)
			if err := inf.WaitForSync(ctx); err != nil {
				t.Fatalf("WaitForSync: %v", err)
			}
			synced := time.Since(start)
			if !waitFor(ctx, func() bool { _, ok := inf.Lister().GetKey(informer.Key{Namespace: "a", Name: "two"}); return ok }) {
				t.Fatalf("the event of the first watch that answered never arrived; cache %v", storeKeys(inf))
			}
			t.Logf("synced after %s, event of the third watch after %s", synced.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			cancel()
			f.Wait()
		})
	}
}

// Hostile 2a: a LIST body that does not end (here: 64 MiB of items) fails
// at the body limit instead of filling memory.
func TestHostileEndlessBody(t *testing.T) {
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) { endlessList(w, 64<<20) })
	cfg := hs.config(nil)
	withBodyLimit(cfg, 8<<20)
	c := hostileClient(t, cfg)
	var err error
	alloc := allocated(func() {
		_, err = client.Typed[*corev1.ConfigMap](c).Namespace("a").List(t.Context(), metav1.ListOptions{})
	})
	if !isLimit(err, "MaxResponseBytes") {
		t.Fatalf("List of an endless body: err = %v, want a MaxResponseBytes limit", err)
	}
	if alloc > 48<<20 {
		t.Errorf("allocated %d MiB for a body limit of 8 MiB", alloc>>20)
	}
	t.Logf("refused after allocating %d MiB: %v", alloc>>20, err)
}

// Hostile 2b: a gzip bomb (256 KiB on the wire, 256 MiB inflated) is
// refused early by the ratio check, for a plain request and for an
// informer's LIST, with the default Config.
func TestHostileGzipBomb(t *testing.T) {
	bomb := gzipBomb(4)
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	c := hostileClient(t, hs.config(nil))
	var err error
	alloc := allocated(func() {
		_, err = client.Typed[*corev1.ConfigMap](c).Namespace("a").List(t.Context(), metav1.ListOptions{})
	})
	if !isLimit(err, "MaxGzipRatio") {
		t.Errorf("List of a gzip bomb: err = %v, want a MaxGzipRatio limit", err)
	}
	if alloc > 32<<20 {
		t.Errorf("allocated %d MiB for a %d KiB gzip bomb", alloc>>20, len(bomb)>>10)
	}
	t.Logf("%d KiB bomb refused after allocating %d MiB: %v", len(bomb)>>10, alloc>>20, err)

	// The informer never syncs: each list attempt ends at the limit, which
	// WaitForSync reports as the cause once its context ends. How long an
	// attempt takes (inflating up to the limit, under -race, on a loaded
	// machine) is logged, not bounded: short waits are repeated until one
	// reports an attempt, within a generous bound.
	f := quickFactory(t, c, false)
	inf, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	start := time.Now()
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		wait, cancelWait := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancelWait()
		if err := inf.WaitForSync(wait); !isLimit(err, "MaxGzipRatio") {
			return fmt.Errorf("informer over a gzip bomb: WaitForSync = %v, want a MaxGzipRatio limit as cause", err)
		}
		return nil
	})
	t.Logf("the informer's list hit MaxGzipRatio within %s", time.Since(start).Round(time.Millisecond))
	cancel()
	f.Wait()
}

// Hostile 2c: an error body of binary junk is not quoted in the error.
func TestHostileBinaryErrorBody(t *testing.T) {
	junk := bytes.Repeat([]byte{0, 1, 2, 0xff, 'x'}, 64<<10)
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadGateway)
		w.Write(bytes.Repeat([]byte{0}, 4096))
		w.Write(junk)
	})
	_, err := client.Typed[*corev1.ConfigMap](hostileClient(t, hs.config(nil))).Namespace("a").Get(t.Context(), "x", metav1.GetOptions{})
	if err == nil {
		t.Fatal("no error for a 502")
	}
	msg := err.Error()
	if len(msg) > 512 || strings.ContainsAny(msg, "\x00\x01\x02") {
		t.Errorf("error quotes the junk body (%d bytes): %q", len(msg), msg)
	}
}

// Hostile 3: watch events whose object is null, {} or has no name end the
// watch; nothing is cached under an empty key and the resume point is
// never reset to "" (which would silently skip events).
func TestHostilePoisonedEvents(t *testing.T) {
	poisons := []string{`null`, `{}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"a"}}`}
	var mu sync.Mutex
	var watchRVs []string
	var watches atomic.Int32
	var hs *hostile
	hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		if !isWatch(r) {
			writeList(w, "10", cm("a", "one", "5"))
			return
		}
		mu.Lock()
		watchRVs = append(watchRVs, r.URL.Query().Get("resourceVersion"))
		mu.Unlock()
		send := startWatch(w)
		if n := int(watches.Add(1)); n <= len(poisons) {
			send("ADDED", poisons[n-1])
		} else {
			send("ADDED", cm("a", "two", "11"))
		}
		hs.hang(r)
	})
	f := quickFactory(t, hostileClient(t, hs.config(nil)), false)
	inf, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	f.Start(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, func() bool { _, ok := inf.Lister().GetKey(informer.Key{Namespace: "a", Name: "two"}); return ok })
	cancel()
	f.Wait()
	if got, want := strings.Join(storeKeys(inf), " "), "a/one a/two"; got != want {
		t.Errorf("cache holds %s, want %s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, rv := range watchRVs {
		if rv != "10" {
			t.Errorf("watch %d resumed from resourceVersion %q, want 10 (all watches %q)", i+1, rv, watchRVs)
		}
	}
}

// Hostile 4: objects of foreign kinds and namespaces, listed and watched,
// are refused: an unstructured informer for configmaps stores no Secret or
// Deployment, and no informer stores objects from another namespace.
func TestHostileForeignObjects(t *testing.T) {
	list := []string{
		cm("a", "one", "5"),
		object("v1", "Secret", "a", "secret", "6"),
		object("apps/v1", "Deployment", "a", "deploy", "7"),
		cm("b", "elsewhere", "8"),
	}
	// The Secret comes last: a typed watch fails to decode it and ends.
	events := []string{cm("b", "elsewhere2", "11"), cm("a", "two", "12"), object("v1", "Secret", "a", "secret2", "13")}
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
	c := hostileClient(t, hs.config(nil))
	f := quickFactory(t, c, false)
	un, err := informer.AcquireResource(f, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, informer.SharedOptions{Namespace: "a"})
	if err != nil {
		t.Fatal(err)
	}
	typed, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	has := func(k string) func() bool {
		return func() bool {
			return slices.Contains(storeKeys(un), k) && slices.Contains(storeKeys(typed), k)
		}
	}
	waitFor(ctx, has("a/two"))
	cancel()
	f.Wait()
	if got, want := strings.Join(storeKeys(un), " "), "a/one a/two"; got != want {
		t.Errorf("unstructured informer for configmaps in a holds %s, want %s", got, want)
	}
	for _, o := range un.Lister().List(nil) {
		if o.GetKind() != "ConfigMap" {
			t.Errorf("unstructured informer holds a %s", o.GetKind())
		}
	}
	if got, want := strings.Join(storeKeys(typed), " "), "a/one a/two"; got != want {
		t.Errorf("typed informer for configmaps in a holds %s, want %s", got, want)
	}
	// Secret, Deployment and the other namespace, listed; Secret and the
	// other namespace, watched.
	if n := refused(un); n != 5 {
		t.Errorf("unstructured informer refused %d objects, want 5", n)
	}
	// The same, except that the typed watch fails to decode the Secret (it
	// is no ConfigMap) and watches again, so the other namespace's event may
	// be refused more than once.
	if n := refused(typed); n < 4 {
		t.Errorf("typed informer refused %d objects, want at least 4", n)
	}
}

// Hostile 5: a Status whose code disagrees with the HTTP status.
func TestHostileStatusCodes(t *testing.T) {
	cases := []struct {
		name   string
		http   int
		body   string
		is     func(error) bool
		isName string
	}{
		{"404 carrying Success and code 200", 404, statusJSON("Success", 200, "", ""), apierrors.IsNotFound, "IsNotFound"},
		{"404 carrying code 999", 404, statusJSON("Failure", 999, "", "gone fishing"), apierrors.IsNotFound, "IsNotFound"},
		{"409 carrying code -1", 409, statusJSON("Failure", -1, "", ""), apierrors.IsConflict, "IsConflict"},
		{"500 carrying code 200", 500, statusJSON("Success", 200, "", ""), apierrors.IsInternalError, "IsInternalError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.http)
				fmt.Fprint(w, tc.body)
			})
			_, err := client.Typed[*corev1.ConfigMap](hostileClient(t, hs.config(nil))).Namespace("a").Get(t.Context(), "x", metav1.GetOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			if !tc.is(err) {
				t.Errorf("%s(%v) = false", tc.isName, err)
			}
			if err.Error() == "" {
				t.Error("Error() is empty")
			}
			var se *apierrors.StatusError
			if errors.As(err, &se) && (se.ErrStatus.Code != int32(tc.http) || se.ErrStatus.Status != metav1.StatusFailure) {
				t.Errorf("Status code %d, status %q; want %d, Failure", se.ErrStatus.Code, se.ErrStatus.Status, tc.http)
			}
		})
	}
}

// Hostile 6: a server echoing the credentials it was sent (in an error
// body, a Warning header and a watch ERROR event) does not get them into
// errors or logs, whichever way the client authenticates.
func TestHostileEchoedCredentials(t *testing.T) {
	const token, password = "tok-SECRET-hostile-1", "pw-SECRET-hostile-2"
	creds := []struct {
		name string
		set  func(*rest.Config)
	}{
		{"bearer token", func(c *rest.Config) { c.BearerToken = token }},
		{"basic auth", func(c *rest.Config) { c.Username, c.Password = "me", password }},
		{"token source (exec plugin)", func(c *rest.Config) { c.Auth = rest.BearerAuth(staticSource(token)) }},
	}
	for _, cr := range creds {
		t.Run(cr.name, func(t *testing.T) {
			var hs *hostile
			hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				echo := "request carried Authorization: " + r.Header.Get("Authorization")
				w.Header().Add("Warning", fmt.Sprintf("299 - %q", echo))
				switch {
				case isWatch(r):
					send := startWatch(w)
					send("ERROR", statusJSON("Failure", 500, "InternalError", echo))
				case strings.HasSuffix(r.URL.Path, "/forbidden"):
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusForbidden)
					fmt.Fprint(w, statusJSON("Failure", 403, "Forbidden", echo))
				case strings.HasSuffix(r.URL.Path, "/text"):
					w.Header().Set("Content-Type", "text/plain")
					w.WriteHeader(http.StatusBadGateway)
					fmt.Fprint(w, echo)
				default:
					writeList(w, "1")
				}
			})
			var logs bytes.Buffer
			cfg := hs.config(&logs)
			cfg.AllowInsecureAuth = true
			cr.set(cfg)
			c := hostileClient(t, cfg)
			cms := client.Typed[*corev1.ConfigMap](c).Namespace("a")
			var texts []string
			_, err := cms.Get(t.Context(), "forbidden", metav1.GetOptions{})
			texts = append(texts, fmt.Sprint(err))
			_, err = cms.Get(t.Context(), "text", metav1.GetOptions{})
			texts = append(texts, fmt.Sprint(err))
			_, err = cms.List(t.Context(), metav1.ListOptions{})
			texts = append(texts, fmt.Sprint(err))
			w, err := cms.Watch(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for ev := range w.ResultChan() {
				texts = append(texts, fmt.Sprintf("%+v", ev.Object))
			}
			texts = append(texts, fmt.Sprint(w.Err()))
			texts = append(texts, logs.String())
			all := strings.Join(texts, "\n")
			if !strings.Contains(all, "Authorization") {
				t.Fatalf("the server's echoes did not come through at all:\n%s", all)
			}
			for _, secret := range []string{token, password, base64.StdEncoding.EncodeToString([]byte("me:" + password))} {
				if strings.Contains(all, secret) {
					t.Errorf("a credential reached errors or logs:\n%s", all)
				}
			}
		})
	}
}

type staticSource string

func (s staticSource) Token(context.Context) (string, error)           { return string(s), nil }
func (s staticSource) Refresh(context.Context, string) (string, error) { return string(s), nil }

// Hostile 7a: a server answering 429 with Retry-After: 30 to every
// request costs one call at most a minute of waiting, not ten times 30 s.
func TestHostileRetryAfterBudget(t *testing.T) {
	var requests atomic.Int32
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	clk := &instantClock{now: time.Now()}
	cfg := hs.config(nil)
	cfg.Clock = clk
	_, err := client.Typed[*corev1.ConfigMap](hostileClient(t, cfg)).Namespace("a").Get(t.Context(), "x", metav1.GetOptions{})
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("err = %v, want 429", err)
	}
	if waited := clk.waited(); waited > time.Minute {
		t.Errorf("one call waited %s for Retry-After (%d requests), want at most a minute", waited, requests.Load())
	} else {
		t.Logf("one call waited %s over %d requests", waited, requests.Load())
	}
}

// instantClock is a clock.Clock whose timers fire at once, advancing its
// time, and that adds up the waits.
type instantClock struct {
	mu    sync.Mutex
	now   time.Time
	total time.Duration
}

func (c *instantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *instantClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.total += d
	c.mu.Unlock()
	f()
	return firedTimer{}
}

func (c *instantClock) waited() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

type firedTimer struct{}

func (firedTimer) Stop() bool               { return false }
func (firedTimer) Reset(time.Duration) bool { return false }

// Hostile 7b: a protobuf watch frame that claims just under 16 MiB and
// then sends ten bytes costs memory for what came, not for the claim.
func TestHostileFrameClaim(t *testing.T) {
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte{0x00, 0xff, 0xff, 0xf0})
		w.Write(make([]byte, 10))
	})
	c := hostileClient(t, hs.config(nil))
	var err error
	alloc := allocated(func() {
		w, werr := c.REST().Get().Namespace("a").Resource("configmaps").Watch(t.Context(), nil)
		if werr != nil {
			err = werr
			return
		}
		for range w.ResultChan() {
		}
		err = w.Err()
	})
	if err == nil {
		t.Error("a truncated frame ended the watch without an error")
	}
	if alloc > 4<<20 {
		t.Errorf("a frame claiming %d bytes and sending 10 allocated %d MiB", 0xfffff0, alloc>>20)
	}
	t.Logf("allocated %d KiB; watch error: %v", alloc>>10, err)
}
