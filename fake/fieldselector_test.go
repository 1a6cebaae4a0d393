package fake

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func podResource() *resource {
	return newRegistry(false).byGVR[schema.GroupVersionResource{Version: "v1", Resource: "pods"}]
}

func TestFieldSelector(t *testing.T) {
	pod := map[string]any{
		"metadata": map[string]any{"name": "p", "namespace": "ns"},
		"spec":     map[string]any{"nodeName": "n1", "restartPolicy": "Always", "hostNetwork": true},
		"status":   map[string]any{"phase": "Running", "podIP": "10.0.0.1"},
	}
	tests := []struct {
		name    string
		sel     string
		match   bool
		wantErr bool
	}{
		{"empty selector matches everything", "", true, false},
		{"name equality", "metadata.name=p", true, false},
		{"namespace inequality", "metadata.namespace!=ns", false, false},
		{"pod node name", "spec.nodeName=n1", true, false},
		{"pod phase and ip", "status.phase=Running,status.podIP=10.0.0.1", true, false},
		{"boolean field renders as true/false", "spec.hostNetwork=true", true, false},
		{"missing field compares as empty", "status.nominatedNodeName=", true, false},
		{"double equals", "spec.restartPolicy==Always", true, false},
		{"unsupported field is an error", "spec.priority=1", false, true},
		{"malformed selector is an error", "metadata.name", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := newFieldMatcher(podResource(), tt.sel)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && m.matches(pod) != tt.match {
				t.Fatalf("matches = %v, want %v", !tt.match, tt.match)
			}
		})
	}
}

func FuzzFieldSelector(f *testing.F) {
	for _, s := range []string{"metadata.name=a", "spec.nodeName!=x,status.phase=Running", `a\,b=c`, "x in (a)", "=", ""} {
		f.Add(s)
	}
	res := podResource()
	pod := map[string]any{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{"nodeName": 3}}
	f.Fuzz(func(t *testing.T, sel string) {
		m, err := newFieldMatcher(res, sel)
		if err != nil {
			return
		}
		_ = m.matches(pod)
	})
}
