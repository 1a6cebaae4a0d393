package wire

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrimmerCutsManagedFieldsOnly(t *testing.T) {
	withMF := testCM("ns", "a", "3")
	withMF.Labels = map[string]string{"app": "web"}
	withMF.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}
	tests := []struct {
		name      string
		obj       *corev1.ConfigMap
		unchanged bool // the input comes back as is
	}{
		{"managedFields are cut", withMF, false},
		{"an object without them comes back as is", testCM("ns", "b", "4"), true},
	}
	var tr Trimmer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := envelopeOf(t, "v1", "ConfigMap", tt.obj)
			for range 2 { // the second call reuses the buffers
				out := tr.Envelope(in)
				if same := &out[0] == &in[0]; same != tt.unchanged {
					t.Fatalf("input returned as is: %v, want %v", same, tt.unchanged)
				}
				e, err := ReadEnvelope(out)
				if err != nil || string(e.Kind) != "ConfigMap" || string(e.APIVersion) != "v1" {
					t.Fatalf("envelope = %+v, %v", e, err)
				}
				var got corev1.ConfigMap
				if err := got.Unmarshal(e.Raw); err != nil {
					t.Fatal(err)
				}
				want := tt.obj.DeepCopy()
				want.ManagedFields = nil
				if !equality.Semantic.DeepEqual(&got, want) {
					t.Fatalf("got %+v\nwant %+v", &got, want)
				}
			}
		})
	}
}

func TestTrimmerLeavesWhatItCannotReadAlone(t *testing.T) {
	withMF := testCM("ns", "a", "1")
	withMF.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
	tests := []struct {
		name string
		b    []byte
	}{
		{"no magic", []byte("nope")},
		{"truncated", envelopeOf(t, "v1", "ConfigMap", testCM("ns", "a", "1"))[:12]},
		{"an encoded envelope", AppendBytes(envelopeOf(t, "v1", "ConfigMap", withMF), 3, []byte("gzip"))},
	}
	var tr Trimmer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out := tr.Envelope(tt.b); string(out) != string(tt.b) || &out[0] != &tt.b[0] {
				t.Fatal("changed")
			}
		})
	}
}
