package rest

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec"
)

func TestTypedProtobufWatchDecodesInPlace(t *testing.T) {
	want := testCM("a", "7")
	want.Data = map[string]string{"k": "v"}
	body := concat(protoFrame(t, "ADDED", protoObject(t, want)), protoFrame(t, "DELETED", protoObject(t, testCM("b", "8"))))
	c := streamServer(t, mediaProtobuf, body)
	w, err := c.Get().Resource("configmaps").Watch(context.Background(), func() kruntime.Object { return &corev1.ConfigMap{} })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	first := (<-w.ResultChan()).Object.(*corev1.ConfigMap)
	second := (<-w.ResultChan()).Object.(*corev1.ConfigMap)
	if first.Name != "a" || first.ResourceVersion != "7" || first.Data["k"] != "v" || second.Name != "b" {
		t.Fatalf("decoded %+v and %+v", first, second)
	}
	if gvk := first.GroupVersionKind(); gvk != (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
		t.Errorf("kind = %v, want v1 ConfigMap", gvk)
	}
}

func TestWatchKnownSkipsDecodingHeldObjects(t *testing.T) {
	held := testCM("a", "1")
	known := func(ns, name, rv string) (kruntime.Object, bool) {
		if ns == held.Namespace && name == "a" && rv == "1" {
			return held, true
		}
		return nil, false
	}
	tests := []struct {
		name     string
		mt       string
		body     func(t *testing.T) []byte
		wantHeld []bool // per event: is the delivered object the held one
	}{
		{"protobuf: same resourceVersion reuses, a newer one decodes", mediaProtobuf, func(t *testing.T) []byte {
			return concat(protoFrame(t, "ADDED", protoObject(t, testCM("a", "1"))), protoFrame(t, "MODIFIED", protoObject(t, testCM("a", "2"))), protoFrame(t, "ADDED", protoObject(t, testCM("c", "1"))))
		}, []bool{true, false, false}},
		{"protobuf: a delete is always decoded", mediaProtobuf, func(t *testing.T) []byte {
			return protoFrame(t, "DELETED", protoObject(t, testCM("a", "1")))
		}, []bool{false}},
		{"JSON is always decoded", mediaJSON, func(t *testing.T) []byte {
			return []byte(jsonEventLine("ADDED", cmJSON("a", "1")))
		}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := streamServer(t, tt.mt, tt.body(t))
			w, err := c.Get().Resource("configmaps").Hints(codec.Hints{Known: known}).Watch(context.Background(), func() kruntime.Object { return &corev1.ConfigMap{} })
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			for i, wantHeld := range tt.wantHeld {
				ev, ok := <-w.ResultChan()
				if !ok {
					t.Fatalf("stream ended before event %d: %v", i, w.Err())
				}
				got := ev.Object.(*corev1.ConfigMap)
				if (got == held) != wantHeld {
					t.Errorf("event %d (%s %s@%s): held object delivered = %v, want %v", i, ev.Type, got.Name, got.ResourceVersion, got == held, wantHeld)
				}
			}
		})
	}
}

func BenchmarkWatchDecodeTypedProtobuf(b *testing.B) {
	cm := testCM("a", "1")
	cm.Data = map[string]string{"a": "b", "c": "d"}
	raw := protoObject(b, cm)
	newCM := func() kruntime.Object { return &corev1.ConfigMap{} }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := testCodecClient.decodeEvent(mediaProtobuf, "ADDED", raw, eventOptions{newObject: newCM}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDropManagedFieldsCutsThemBeforeDecoding(t *testing.T) {
	withMF := testCM("a", "3")
	withMF.Labels = map[string]string{"app": "web"}
	withMF.Data = map[string]string{"k": "v"}
	withMF.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}
	without := testCM("b", "4")
	tests := []struct {
		name string
		drop bool
		obj  *corev1.ConfigMap
	}{
		{"managedFields are cut when asked", true, withMF},
		{"managedFields are kept by default", false, withMF},
		{"an object without them is unchanged", true, without},
	}
	for _, tt := range tests {
		for _, media := range []string{mediaProtobuf, "application/json"} {
			t.Run(tt.name+" in "+media, func(t *testing.T) {
				var body []byte
				if media == mediaProtobuf {
					body = concat(protoFrame(t, "ADDED", protoObject(t, tt.obj)), protoFrame(t, "MODIFIED", protoObject(t, tt.obj)))
				} else {
					js, err := json.Marshal(tt.obj)
					if err != nil {
						t.Fatal(err)
					}
					body = []byte(jsonEventLine("ADDED", string(js)) + jsonEventLine("MODIFIED", string(js)))
				}
				c := streamServer(t, media, body)
				r := c.Get().Resource("configmaps")
				if tt.drop {
					r = r.Hints(codec.Hints{DropManagedFields: true})
				}
				w, err := r.Watch(context.Background(), func() kruntime.Object { return &corev1.ConfigMap{} })
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				for range 2 { // the second event reuses the cut's buffers
					got := (<-w.ResultChan()).Object.(*corev1.ConfigMap)
					want := tt.obj.DeepCopy()
					if tt.drop {
						want.ManagedFields = nil
					}
					want.TypeMeta = got.TypeMeta
					if !equality.Semantic.DeepEqual(got, want) {
						t.Fatalf("got %+v\nwant %+v", got, want)
					}
				}
			})
		}
	}
}
