package rest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/scheme"
)

func testCM(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "n", ResourceVersion: rv},
		Data:       map[string]string{"k": name},
	}
}

func jsonEventLine(typ string, obj string) string {
	return `{"type":"` + typ + `","object":` + obj + "}\n"
}

func cmJSON(name, rv string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"n","resourceVersion":"` + rv + `"},"data":{"k":"` + name + `"}}`
}

// testCodecClient decodes through the scheme of every built-in kind, as the
// serializers it is compared with do; testDefaultClient names no scheme and
// knows the built-in kinds by their Go types.
var testCodecClient = func() *Client {
	c, err := NewClient(&Config{Host: "https://x", Scheme: scheme.Default()})
	if err != nil {
		panic(err)
	}
	return c
}()

var testDefaultClient = func() *Client {
	c, err := NewClient(&Config{Host: "https://x"})
	if err != nil {
		panic(err)
	}
	return c
}()

func protoObject(t testing.TB, obj kruntime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := testCodecClient.proto.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// protoFrame encodes one length-delimited protobuf watch event.
func protoFrame(t testing.TB, typ string, raw []byte) []byte {
	t.Helper()
	ev := metav1.WatchEvent{Type: typ, Object: kruntime.RawExtension{Raw: raw}}
	data, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	return append(out, data...)
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// streamServer answers a watch with body in content type ct, then ends.
func streamServer(t *testing.T, ct string, body []byte) *Client {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			t.Errorf("watch param = %q", r.URL.Query().Get("watch"))
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(200)
		_, _ = w.Write(body)
	})
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.Limits.MaxFrameBytes = 4096; cfg.Scheme = scheme.Default() })
	return c
}

type seen struct {
	typ  watch.EventType
	name string
}

func collect(t *testing.T, w *WatchStream) []seen {
	t.Helper()
	var out []seen
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			name := ""
			if m, err := metaAccessor(ev.Object); err == nil {
				name = m
			}
			out = append(out, seen{ev.Type, name})
		case <-timeout:
			t.Fatal("watch did not end")
		}
	}
}

func metaAccessor(obj kruntime.Object) (string, error) {
	switch o := obj.(type) {
	case *metav1.Status:
		return string(o.Reason), nil
	case metav1.Object:
		return o.GetName(), nil
	}
	return "", fmt.Errorf("no metadata in %T", obj)
}

func TestWatchDecodesStreams(t *testing.T) {
	tp := func(typ string, obj kruntime.Object) []byte { return protoFrame(t, typ, protoObject(t, obj)) }
	goneJSON := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	gone := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: 410, Message: "too old"}
	bigFrame := binary.BigEndian.AppendUint32(nil, 1<<30)
	tests := []struct {
		name    string
		ct      string
		body    []byte
		want    []seen
		wantErr func(error) bool
	}{
		{"JSON events in order", mediaJSON, []byte(jsonEventLine("ADDED", cmJSON("a", "1")) + jsonEventLine("MODIFIED", cmJSON("a", "2")) + jsonEventLine("DELETED", cmJSON("a", "3"))),
			[]seen{{watch.Added, "a"}, {watch.Modified, "a"}, {watch.Deleted, "a"}}, nil},
		{"JSON concatenated without newlines", mediaJSON + ";stream=watch", []byte(strings.TrimSpace(jsonEventLine("ADDED", cmJSON("a", "1"))) + strings.TrimSpace(jsonEventLine("ADDED", cmJSON("b", "2")))),
			[]seen{{watch.Added, "a"}, {watch.Added, "b"}}, nil},
		{"JSON bookmark", mediaJSON, []byte(jsonEventLine("BOOKMARK", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"9"}}`)),
			[]seen{{watch.Bookmark, ""}}, nil},
		{"protobuf events in order", mediaProtobuf + ";stream=watch", concat(tp("ADDED", testCM("a", "1")), tp("MODIFIED", testCM("a", "2")), tp("DELETED", testCM("a", "3"))),
			[]seen{{watch.Added, "a"}, {watch.Modified, "a"}, {watch.Deleted, "a"}}, nil},
		{"JSON ERROR event ends with a StatusError", mediaJSON, []byte(jsonEventLine("ADDED", cmJSON("a", "1")) + jsonEventLine("ERROR", goneJSON) + jsonEventLine("ADDED", cmJSON("b", "2"))),
			[]seen{{watch.Added, "a"}, {watch.Error, "Expired"}}, apierrors.IsResourceExpired},
		{"protobuf ERROR event ends with a StatusError", mediaProtobuf, concat(tp("ERROR", gone)),
			[]seen{{watch.Error, "Expired"}}, apierrors.IsResourceExpired},
		{"JSON truncated mid-event", mediaJSON, []byte(jsonEventLine("ADDED", cmJSON("a", "1")) + `{"type":"ADDED","object":{"apiVer`),
			[]seen{{watch.Added, "a"}}, isErr(ErrTruncated)},
		{"protobuf truncated frame body", mediaProtobuf, tp("ADDED", testCM("a", "1"))[:20],
			nil, isErr(ErrTruncated)},
		{"protobuf truncated length prefix", mediaProtobuf, append(tp("ADDED", testCM("a", "1")), 0, 0),
			[]seen{{watch.Added, "a"}}, isErr(ErrTruncated)},
		{"JSON garbage", mediaJSON, []byte("hello world"), nil, isDecodeError},
		{"JSON not an object", mediaJSON, []byte("[1,2]"), nil, isDecodeError},
		{"JSON event with a broken object", mediaJSON, []byte(jsonEventLine("ADDED", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}}`)), nil, isDecodeError},
		{"JSON event without object", mediaJSON, []byte(`{"type":"ADDED"}`), nil, isDecodeError},
		{"protobuf garbage frame", mediaProtobuf, concat(binary.BigEndian.AppendUint32(nil, 4), []byte{0xff, 0xff, 0xff, 0xff}), nil, isDecodeError},
		{"protobuf garbage object", mediaProtobuf, protoFrame(t, "ADDED", []byte("k8s\x00\xff\xff")), nil, isDecodeError},
		{"JSON unknown event type", mediaJSON, []byte(jsonEventLine("EXPLODED", cmJSON("a", "1"))), nil, isErr(ErrUnknownEventType)},
		{"protobuf unknown event type", mediaProtobuf, tp("WHATEVER", testCM("a", "1")), nil, isErr(ErrUnknownEventType)},
		{"JSON ERROR without Status", mediaJSON, []byte(jsonEventLine("ERROR", cmJSON("a", "1"))), nil, isDecodeError},
		{"protobuf oversized frame", mediaProtobuf, concat(tp("ADDED", testCM("a", "1")), bigFrame), []seen{{watch.Added, "a"}}, isErr(ErrFrameTooLarge)},
		{"JSON oversized event", mediaJSON, []byte(jsonEventLine("ADDED", cmJSON("a", "1")) + `{"type":"ADDED","object":{"data":"` + strings.Repeat("x", 100_000) + `"}}`),
			[]seen{{watch.Added, "a"}}, isErr(ErrFrameTooLarge)},
		{"empty stream ends cleanly", mediaJSON, nil, nil, nil},
		{"unknown kind decodes as unstructured", mediaJSON, []byte(jsonEventLine("ADDED", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)),
			[]seen{{watch.Added, "w"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := streamServer(t, tt.ct, tt.body)
			w, err := c.Get().Namespace("n").Resource("configmaps").Watch(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := collect(t, w)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("events = %v, want %v", got, tt.want)
			}
			err = w.Err()
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("Err() = %v, want nil", err)
			case tt.wantErr != nil && (err == nil || !tt.wantErr(err)):
				t.Errorf("Err() = %T %v, unexpected", err, err)
			}
			w.Stop()
			w.Stop()
		})
	}
	checkNoWatchGoroutines(t)
}

func isErr(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) && isDecodeError(err) }
}

func isDecodeError(err error) bool {
	var de *DecodeError
	return errors.As(err, &de)
}

func TestWatchDecodesIntoCallerTypes(t *testing.T) {
	body := []byte(jsonEventLine("ADDED", cmJSON("a", "1")))
	t.Run("typed", func(t *testing.T) {
		c := streamServer(t, mediaJSON, body)
		w, err := c.Get().Resource("configmaps").Watch(context.Background(), func() kruntime.Object { return &corev1.ConfigMap{} })
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		if cm, ok := ev.Object.(*corev1.ConfigMap); !ok || cm.Name != "a" {
			t.Errorf("got %T %v", ev.Object, ev.Object)
		}
	})
	t.Run("unstructured from protobuf", func(t *testing.T) {
		c := streamServer(t, mediaProtobuf, protoFrame(t, "ADDED", protoObject(t, testCM("a", "1"))))
		w, err := c.Get().Resource("configmaps").Watch(context.Background(), func() kruntime.Object { return &unstructured.Unstructured{} })
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		if u, ok := ev.Object.(*unstructured.Unstructured); !ok || u.GetName() != "a" || u.GetKind() != "ConfigMap" {
			t.Errorf("got %T %v", ev.Object, ev.Object)
		}
	})
}

// endlessServer sends one event and then holds the stream open until the
// client goes away, reporting that on gone.
func endlessServer(t *testing.T) (*Client, <-chan struct{}) {
	gone := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaJSON)
		_, _ = w.Write([]byte(jsonEventLine("ADDED", cmJSON("a", "1"))))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	})
	c, _ := newTestClient(t, srv, nil)
	return c, gone
}

func TestWatchStopFreesTheConnection(t *testing.T) {
	c, gone := endlessServer(t)
	w, err := c.Get().Resource("configmaps").Watch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	<-w.ResultChan()
	w.Stop()
	w.Stop()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("server still sees the request after Stop")
	}
	if _, ok := <-w.ResultChan(); ok {
		t.Error("channel still open after Stop")
	}
	if err := w.Err(); err != nil {
		t.Errorf("Err after Stop = %v", err)
	}
	checkNoWatchGoroutines(t)
}

func TestWatchEndsWhenContextEnds(t *testing.T) {
	c, gone := endlessServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Get().Resource("configmaps").Watch(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-w.ResultChan()
	cancel()
	for range w.ResultChan() {
	}
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", err)
	}
	<-gone
	w.Stop()
	checkNoWatchGoroutines(t)
}

func TestWatchStopWhileConsumerIsNotReading(t *testing.T) {
	body := []byte(jsonEventLine("ADDED", cmJSON("a", "1")) + jsonEventLine("ADDED", cmJSON("b", "1")))
	c := streamServer(t, mediaJSON, body)
	w, err := c.Get().Resource("configmaps").Watch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Stop() // run is blocked sending the first event
	checkNoWatchGoroutines(t)
}

func TestWatchStartErrorsAreStatusErrors(t *testing.T) {
	c, _ := captureServer(t, 403, mediaJSON, statusJSON(403, metav1.StatusReasonForbidden, "no"))
	_, err := c.Get().Resource("configmaps").Watch(context.Background(), nil)
	if !apierrors.IsForbidden(err) {
		t.Errorf("err = %v", err)
	}
	c, _ = captureServer(t, 200, "text/html", []byte("<html>"))
	_, err = c.Get().Resource("configmaps").Watch(context.Background(), nil)
	if !errors.Is(err, ErrUnsupportedMediaType) {
		t.Errorf("err = %v", err)
	}
}

// checkNoWatchGoroutines fails if a watch goroutine is still running.
func checkNoWatchGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "(*WatchStream).run") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("leaked watch goroutine:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond) // polling for goroutines to exit: real goroutines, no clock involved
	}
}

func TestWatchErrorEventSurvivesAnImmediateStop(t *testing.T) {
	goneJSON := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gone","reason":"Expired","code":410}`
	for range 20 {
		c := streamServer(t, mediaJSON, []byte(jsonEventLine("ERROR", goneJSON)))
		w, err := c.Get().Resource("configmaps").Watch(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		w.Stop()
		if ev.Type != watch.Error || !apierrors.IsResourceExpired(w.Err()) {
			t.Fatalf("event %v, Err %v", ev.Type, w.Err())
		}
	}
}
