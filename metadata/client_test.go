package metadata_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

// wire is how the fake server answers: in protobuf when asked for it (as
// kube-apiserver does), or in JSON only (as a server or proxy that cannot
// produce protobuf metadata does).
type wire int

const (
	protobufWire wire = iota
	jsonWire
)

func server(t testing.TB, accepts *[]string) *metadata.Client {
	return serverFor(t, accepts, protobufWire)
}

func serverFor(t testing.TB, accepts *[]string, w wire) *metadata.Client {
	srv := newServer(accepts, w)
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return metadata.New(rc, metadata.Options{})
}

var (
	partialList = &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "5"},
		Items: []metav1.PartialObjectMetadata{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: metav1.ObjectMeta{Name: "token", Labels: map[string]string{"app": "web"}},
		}},
	}
	partial = &partialList.Items[0]
)

func newServer(accepts *[]string, w wire) *httptest.Server {
	var mu sync.Mutex
	pb := protobuf.NewSerializer(scheme.Default(), scheme.Default())
	return httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if accepts != nil {
			*accepts = append(*accepts, r.Method+" "+r.Header.Get("Accept"))
		}
		mu.Unlock()
		proto := w == protobufWire && strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.kubernetes.protobuf")
		var obj runtime.Object = partial
		if r.Method == "GET" && r.URL.Path == "/api/v1/namespaces/default/secrets" && r.URL.Query().Get("watch") == "" {
			obj = partialList
		}
		watching := r.URL.Query().Get("watch") == "true"
		switch {
		case proto:
			var buf bytes.Buffer
			_ = pb.Encode(obj, &buf)
			body := buf.Bytes()
			if watching {
				rw.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
				ev := metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: body}}
				frame, _ := ev.Marshal()
				body = binary.BigEndian.AppendUint32(nil, uint32(len(frame)))
				body = append(body, frame...)
			} else {
				rw.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;as="+obj.GetObjectKind().GroupVersionKind().Kind+";g=meta.k8s.io;v=v1")
			}
			_, _ = rw.Write(body)
		case watching:
			rw.Header().Set("Content-Type", "application/json;stream=watch")
			_ = json.NewEncoder(rw).Encode(map[string]any{"type": "ADDED", "object": obj})
		default:
			rw.Header().Set("Content-Type", "application/json;as="+obj.GetObjectKind().GroupVersionKind().Kind+";g=meta.k8s.io;v=v1")
			_ = json.NewEncoder(rw).Encode(obj)
		}
	}))
}

var secrets = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

func TestRequestsAskForPartialObjectMetadata(t *testing.T) {
	var accepts []string
	r := server(t, &accepts).Resource(secrets).Namespace("default")
	ctx := context.Background()
	if _, err := r.Get(ctx, "token", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := r.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].Labels["app"] != "web" {
		t.Fatal(l, err)
	}
	if _, err := r.Patch(ctx, "token", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, "token", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET " + metadata.Accept, "GET " + metadata.AcceptList, "PATCH " + metadata.Accept, "DELETE " + metadata.Accept}
	if fmt.Sprint(accepts) != fmt.Sprint(want) {
		t.Fatalf("Accept headers\n%q\nwant\n%q", accepts, want)
	}
}

func TestEitherWireDecodesToPartialObjectMetadata(t *testing.T) {
	for _, tc := range []struct {
		name string
		wire wire
	}{
		{"the server answers in protobuf", protobufWire},
		{"the server answers in JSON only", jsonWire},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := serverFor(t, nil, tc.wire).Resource(secrets).Namespace("default")
			ctx := context.Background()
			got, err := r.Get(ctx, "token", metav1.GetOptions{})
			if err != nil || got.Name != "token" || got.Labels["app"] != "web" || got.TypeMeta != partial.TypeMeta {
				t.Fatalf("get %+v %v", got, err)
			}
			l, err := r.List(ctx, metav1.ListOptions{})
			if err != nil || l.TypeMeta != partialList.TypeMeta || l.ResourceVersion != "5" || len(l.Items) != 1 || l.Items[0].Labels["app"] != "web" {
				t.Fatalf("list %+v %v", l, err)
			}
			w, err := r.Watch(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := <-w.ResultChan()
			if o, ok := ev.Object.(*metav1.PartialObjectMetadata); !ok || ev.Type != "ADDED" || o.Name != "token" || o.TypeMeta != partial.TypeMeta {
				t.Fatalf("event %v %#v", ev.Type, ev.Object)
			}
		})
	}
}

// List the metadata of secrets without moving their data.
func Example() {
	srv := newServer(nil, protobufWire)
	defer srv.Close()
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	mc := metadata.New(rc, metadata.Options{})
	list, err := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range list.Items {
		fmt.Println(s.Name, s.Labels["app"])
	}
	// Output: token web
}
