package codec

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/internal/codec/dedup"
	"github.com/kubego/kubego/internal/codec/layout"
	"github.com/kubego/kubego/internal/codec/protodec"
	"github.com/kubego/kubego/internal/codec/wire"
)

func envelopeOf(t *testing.T, cm *corev1.ConfigMap) []byte {
	t.Helper()
	raw, err := cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tm := wire.AppendBytes(wire.AppendBytes(nil, 1, []byte("v1")), 2, []byte("ConfigMap"))
	return wire.AppendBytes(wire.AppendBytes([]byte(wire.Magic), 1, tm), 2, raw)
}

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}, Data: map[string]string{"k": "v"}}
}

func TestEventsHeld(t *testing.T) {
	held := cm("a", "1")
	var asked []string
	known := func(ns, name, rv string) (runtime.Object, bool) {
		asked = append(asked, ns+"/"+name+"@"+rv)
		if ns == "ns" && name == "a" && rv == "1" {
			return held, true
		}
		return nil, false
	}
	tests := []struct {
		name  string
		hints Hints
		env   []byte
		want  bool
	}{
		{"the held object at its resourceVersion", Hints{Known: known}, envelopeOf(t, cm("a", "1")), true},
		{"a newer resourceVersion", Hints{Known: known}, envelopeOf(t, cm("a", "2")), false},
		{"another object", Hints{Known: known}, envelopeOf(t, cm("b", "1")), false},
		{"no Known", Hints{}, envelopeOf(t, cm("a", "1")), false},
		{"bytes that are no envelope", Hints{Known: known}, []byte("{}"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, ok := NewEvents(tt.hints).Held(tt.env)
			if ok != tt.want || (ok && obj != runtime.Object(held)) {
				t.Fatalf("Held = %v, %v; want held %v", obj, ok, tt.want)
			}
		})
	}
	if len(asked) != 3 {
		t.Fatalf("Known asked %d times (%v), want 3", len(asked), asked)
	}
}

func TestEventsTrim(t *testing.T) {
	env := envelopeOf(t, cm("a", "1"))
	tests := []struct {
		name     string
		hints    Hints
		protobuf bool
		in       string
		wantCut  bool
	}{
		{"protobuf, dropping", Hints{DropManagedFields: true}, true, string(env), true},
		{"protobuf, keeping", Hints{}, true, string(env), false},
		{"JSON, dropping", Hints{DropManagedFields: true}, false, `{"metadata":{"managedFields":[],"name":"a"}}`, true},
		{"JSON, keeping", Hints{}, false, `{"metadata":{"managedFields":[],"name":"a"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := NewEvents(tt.hints).Trim(tt.protobuf, []byte(tt.in))
			if cut := len(out) < len(tt.in); cut != tt.wantCut {
				t.Fatalf("cut = %v, want %v (%q)", cut, tt.wantCut, out)
			}
		})
	}
}

func TestUnmarshalSharesThroughTheTable(t *testing.T) {
	tests := []struct {
		name   string
		names  [3]string
		shared bool
	}{
		{"equal values of different objects are shared", [3]string{"a", "b", "c"}, true},
		// Unmarshal names the object to the table: values met only in
		// versions of one object are not kept for it.
		{"equal values of one object's versions are not", [3]string{"a", "a", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d protodec.Decoder
			tab := dedup.New(dedup.Options{})
			var objs [3]corev1.ConfigMap
			for i := range objs {
				raw, err := cm(tt.names[i], strconv.Itoa(i+1)).Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if ok, err := Unmarshal(&d, raw, &objs[i], tab); !ok || err != nil {
					t.Fatalf("Unmarshal = %v, %v", ok, err)
				}
			}
			if len(objs[2].Data) != 1 || objs[1].Data["k"] != "v" || objs[2].Name != tt.names[2] {
				t.Fatal("decoded wrong")
			}
			// Values are shared from their second sighting on.
			if got := layout.SameMap(objs[1].Data, objs[2].Data); got != tt.shared {
				t.Fatalf("data maps shared = %v, want %v", got, tt.shared)
			}
			tab.Object(&corev1.ConfigMap{}) // the table is free again
		})
	}
}
