package faults_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// The hostile-server kit: an httptest server that plays a broken or
// hostile kube-apiserver, and the building blocks of its answers —
// endless bodies, gzip bombs, headers that never come, poisoned watch
// events, objects of foreign kinds and namespaces, echoed credentials.
// Unlike the rest of the suite it needs no control plane, so it runs under
// -short too; every test stops by itself within seconds.

// hostile is a test server answering with h. Handlers that block must
// return when the request's context ends or when done is closed (at
// cleanup, before the server is closed).
type hostile struct {
	srv  *httptest.Server
	done chan struct{}
}

func newHostile(t testing.TB, h http.HandlerFunc) *hostile {
	t.Helper()
	hs := &hostile{done: make(chan struct{})}
	hs.srv = httptest.NewServer(h)
	t.Cleanup(hs.srv.Close)
	t.Cleanup(func() { close(hs.done) })
	return hs
}

// config is a JSON client config for the server, logging into log (nil:
// nowhere).
func (hs *hostile) config(log io.Writer) *rest.Config {
	if log == nil {
		log = io.Discard
	}
	return &rest.Config{
		Host:        hs.srv.URL,
		ContentType: rest.ContentTypeJSON,
		Logger:      slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

// hang blocks until the client gives up or the test ends: a server that
// never sends response headers.
func (hs *hostile) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-hs.done:
	}
}

// cm is the JSON of a ConfigMap.
func cm(ns, name, rv string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"resourceVersion":%q}}`, name, ns, rv)
}

// object is the JSON of an object of any kind.
func object(apiVersion, kind, ns, name, rv string) string {
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"namespace":%q,"resourceVersion":%q}}`, apiVersion, kind, name, ns, rv)
}

// writeList answers a LIST with items (JSON objects) at resourceVersion rv.
func writeList(w http.ResponseWriter, rv string, items ...string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":%q},"items":[%s]}`, rv, strings.Join(items, ","))
}

// startWatch sends the headers of a JSON watch and returns a function
// sending one event (object is raw JSON: null, {} and foreign kinds
// included).
func startWatch(w http.ResponseWriter) func(typ, object string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return func(typ, object string) {
		fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", typ, object)
		f.Flush()
	}
}

// endlessList writes a LIST body that goes on for limit bytes of items
// (then ends validly): a server that never stops talking.
func endlessList(w http.ResponseWriter, limit int) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[`)
	item := []byte(cm("a", "filler", "1"))
	for n, i := 0, 0; n < limit; i++ {
		if i > 0 {
			w.Write([]byte{','})
		}
		m, err := w.Write(item)
		if err != nil {
			return
		}
		n += m + 1
	}
	io.WriteString(w, "]}")
}

var (
	bombOnce   sync.Once
	bombMember []byte
)

// gzipBomb returns members gzip members of 64 MiB of zeros each, about
// 64 KiB apiece on the wire: a body that expands about 1000 times.
func gzipBomb(members int) []byte {
	bombOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zero := make([]byte, 1<<20)
		for range 64 {
			zw.Write(zero)
		}
		zw.Close()
		bombMember = b.Bytes()
	})
	return bytes.Repeat(bombMember, members)
}

// allocated returns the bytes f allocated (process-wide, so run such
// tests alone).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hostileClient is a client.Client for cfg.
func hostileClient(t testing.TB, cfg *rest.Config) *client.Client {
	t.Helper()
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rc, client.Options{})
}

// quickFactory is an informer factory on c whose reflectors retry at
// once (the hostile tests measure what the client does, not how long it
// backs off) and whose logs go to t.
func quickFactory(t *testing.T, c *client.Client, streaming bool) *informer.Factory {
	return informer.NewFactory(c, informer.FactoryOptions{
		Reflector: informer.ReflectorOptions{DisableStreaming: !streaming, Backoff: backoffQuick},
		Logger:    slog.New(slog.NewTextHandler(tWriter{t}, nil)),
	})
}

// tWriter writes to a test's log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// backoffQuick is the reflector backoff of the hostile tests.
var backoffQuick = backoff.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Jitter: -1}

// storeKeys lists the keys an informer holds, sorted; a key with an empty
// name shows as "<no name>".
func storeKeys[T informer.Object](inf *informer.Informer[T]) []string {
	var keys []string
	for _, k := range inf.Lister().Keys() {
		s := k.String()
		if k.Name == "" {
			s = "<no name>"
		}
		keys = append(keys, s)
	}
	slices.Sort(keys)
	return keys
}

// waitFor polls cond every 10ms until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) bool {
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// statusJSON is a metav1.Status in JSON.
func statusJSON(status string, code int, reason, message string) string {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "status": status, "code": code, "reason": reason, "message": message})
	return string(b)
}
