package protodec

import (
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
