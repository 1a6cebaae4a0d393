package dedup

import (
	"fmt"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/protodec"
)

// sitesPod is Pod i; with unique set none of its values recurs in
// another Pod, otherwise only its name and env values are its own.
func sitesPod(i int, unique bool) []byte {
	u := func(s string) string {
		if unique {
			return fmt.Sprintf("%s-%d", s, i)
		}
		return s
	}
	env := make([]corev1.EnvVar, 8)
	for j := range env {
		env[j] = corev1.EnvVar{Name: u(fmt.Sprintf("SETTING_%d", j)), Value: fmt.Sprintf("value-%d-of-%d", j, i)}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Namespace: "ns",
			Labels: map[string]string{u("app"): u("web")}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: u("registry.example.com/app:v1"), Env: env}}},
	}
	raw, err := p.Marshal()
	if err != nil {
		panic(err)
	}
	return raw
}

func TestSitesOnPods(t *testing.T) {
	const pods = 4000
	tests := []struct {
		name       string
		unique     bool
		minRested  float64 // of all values decoded
		maxRested  float64
		wantShared bool // the image of the last two Pods is one string
	}{
		{name: "Pods whose values never recur are mostly decoded without lookups", unique: true, minRested: 0.8, maxRested: 1},
		{name: "Pods whose values recur keep their shared values", unique: false, minRested: 0.1, maxRested: 0.6, wantShared: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d protodec.Decoder
			tab := New(Options{})
			var last [2]*corev1.Pod
			for i := range pods {
				var p corev1.Pod
				s := tab.Begin([]byte("ns"), fmt.Appendf(nil, "pod-%d", i))
				_, err := d.Unmarshal(sitesPod(i, tt.unique), &p, s)
				s.End()
				if err != nil {
					t.Fatal(err)
				}
				last[0], last[1] = last[1], &p
			}
			values := float64(pods * (1 + 2 + 2 + 8*2)) // namespace, label, name and image, env
			rested := float64(tab.sites.rested) / values
			t.Logf("%.3f of the values decoded without a lookup", rested)
			if rested < tt.minRested || rested > tt.maxRested {
				t.Errorf("%.2f of the values decoded without a lookup, want %.2f to %.2f", rested, tt.minRested, tt.maxRested)
			}
			a, b := last[0].Spec.Containers[0].Image, last[1].Spec.Containers[0].Image
			if shared := unsafe.StringData(a) == unsafe.StringData(b); shared != tt.wantShared {
				t.Errorf("images shared = %v, want %v", shared, tt.wantShared)
			}
			if ns := last[1].Namespace; unsafe.StringData(ns) != unsafe.StringData(last[0].Namespace) {
				t.Error("the namespace, which recurs in both populations, is not shared")
			}
		})
	}
}
