package wire

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// envelopeOf frames obj as kube-apiserver does: the magic, then a
// runtime.Unknown of its apiVersion, kind and bytes.
func envelopeOf(t testing.TB, apiVersion, kind string, obj interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	raw, err := obj.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tm := AppendBytes(AppendBytes(nil, 1, []byte(apiVersion)), 2, []byte(kind))
	return AppendBytes(AppendBytes([]byte(Magic), 1, tm), 2, raw)
}

func testCM(ns, name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}, Data: map[string]string{"k": "v"}}
}

func TestReadEnvelopeAndIdentity(t *testing.T) {
	cm := testCM("ns-1", "name-1", "42")
	e, err := ReadEnvelope(envelopeOf(t, "v1", "ConfigMap", cm))
	if err != nil || !e.Plain || string(e.Kind) != "ConfigMap" || string(e.APIVersion) != "v1" {
		t.Fatalf("envelope = %+v, %v", e, err)
	}
	ns, name, rv, ok := Identity(e.Raw)
	if !ok || string(ns) != "ns-1" || string(name) != "name-1" || string(rv) != "42" {
		t.Fatalf("identity = %q %q %q %v", ns, name, rv, ok)
	}
	var back corev1.ConfigMap
	if err := back.Unmarshal(e.Raw); err != nil || !equality.Semantic.DeepEqual(&back, cm) {
		t.Fatalf("Raw does not hold the object: %v", err)
	}
}

func TestReadEnvelopeRejectsWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"no magic", []byte("k9s\x00")},
		{"truncated length", []byte("k8s\x00\x12\x05ab")},
		{"bad wire type", []byte("k8s\x00\x0f")},
		{"field zero", []byte("k8s\x00\x02\x00")},
		{"end of group without a start", []byte("k8s\x00\x0c")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadEnvelope(tt.b); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestReadEnvelopeIsNotPlainWithAnEncoding(t *testing.T) {
	b := AppendBytes(envelopeOf(t, "v1", "ConfigMap", testCM("", "a", "1")), 3, []byte("gzip"))
	if e, err := ReadEnvelope(b); err != nil || e.Plain {
		t.Fatalf("envelope = %+v, %v; want not plain", e, err)
	}
}

func TestIdentityNeedsNameAndResourceVersion(t *testing.T) {
	tests := []struct {
		name string
		obj  []byte
	}{
		{"empty metadata", []byte{0x0a, 0x00}},
		{"no metadata", nil},
		{"no resourceVersion", mustMarshal(t, testCM("ns", "a", ""))},
		{"no name", mustMarshal(t, testCM("ns", "", "1"))},
		{"malformed", []byte{0x0a, 0x05, 0x0a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, _, ok := Identity(tt.obj); ok {
				t.Error("identity read")
			}
		})
	}
}

func TestReadWatchEvent(t *testing.T) {
	obj := envelopeOf(t, "v1", "ConfigMap", testCM("", "a", "1"))
	ev := metav1.WatchEvent{Type: "MODIFIED"}
	ev.Object.Raw = obj
	b := mustMarshal(t, &ev)
	typ, raw, err := ReadWatchEvent(b)
	if err != nil || typ != "MODIFIED" || string(raw) != string(obj) {
		t.Fatalf("ReadWatchEvent = %q, %d bytes, %v", typ, len(raw), err)
	}
	if _, _, err := ReadWatchEvent(b[:len(b)-1]); err == nil {
		t.Fatal("a truncated event was read")
	}
}

func mustMarshal(t testing.TB, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
