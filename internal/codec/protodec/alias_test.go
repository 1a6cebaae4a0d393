package protodec

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAliasDecodesEqualObjectsOfTheirOwn(t *testing.T) {
	in := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "3", Labels: map[string]string{"app": "web"}},
		Data:       map[string]string{"k": "v"},
	}
	raw, err := in.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	decode := func() *corev1.ConfigMap {
		var out corev1.ConfigMap
		if handled, err := d.Unmarshal(raw, &out, Alias{}); !handled || err != nil {
			t.Fatalf("Unmarshal: handled %v, %v", handled, err)
		}
		return &out
	}
	a, b := decode(), decode()
	if !equality.Semantic.DeepEqual(a, in) {
		t.Fatalf("decoded %v, want %v", a, in)
	}
	a.Labels["app"] = "changed"
	a.Data["k"] = "changed"
	if b.Labels["app"] != "web" || b.Data["k"] != "v" {
		t.Fatal("two decodings share a map")
	}
	if c := decode(); c.Labels["app"] != "web" {
		t.Fatal("a change to a decoded map reached the bytes")
	}
}

func TestOwnViewsBytesFieldsWithoutReachingTheNextField(t *testing.T) {
	in := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"},
		Data:       map[string][]byte{"a": []byte("first"), "b": []byte("second"), "empty": {}},
		Type:       corev1.SecretTypeOpaque,
	}
	raw, err := in.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	var out corev1.Secret
	if handled, err := d.Unmarshal(raw, &out, Own{}); !handled || err != nil {
		t.Fatalf("Unmarshal: handled %v, %v", handled, err)
	}
	if !equality.Semantic.DeepEqual(&out, in) {
		t.Fatalf("decoded %v, want %v", &out, in)
	}
	if out.Data["empty"] == nil {
		t.Error("an empty value decoded as nil; the generated decoder gives an empty slice")
	}
	v := out.Data["a"]
	if cap(v) != len(v) {
		t.Fatalf("a view's capacity %d runs past its field's %d bytes", cap(v), len(v))
	}
	if &v[0] != &raw[bytes.Index(raw, []byte("first"))] {
		t.Fatal("the value was copied, not viewed")
	}
	out.Data["a"] = append(v, "-and-more"...)
	if string(out.Data["b"]) != "second" || out.Type != corev1.SecretTypeOpaque || out.Name != "a" {
		t.Fatalf("an append to one value changed the others: %q, %q, %q", out.Data["b"], out.Type, out.Name)
	}

	// Alias copies bytes: the message's bytes are shared.
	var shared corev1.Secret
	if _, err := d.Unmarshal(raw, &shared, Alias{}); err != nil {
		t.Fatal(err)
	}
	shared.Data["b"][0] = 'X'
	if !bytes.Contains(raw, []byte("second")) {
		t.Fatal("Alias let a change to a []byte value reach the message's bytes")
	}
}
