package fake

import "testing"

func TestPullPolicyFollowsImageTag(t *testing.T) {
	tests := []struct{ image, want string }{
		{"busybox", "Always"},
		{"busybox:latest", "Always"},
		{"busybox:1.36", "IfNotPresent"},
		{"registry.example:5000/team/app", "Always"},
		{"registry.example:5000/team/app:v2", "IfNotPresent"},
		{"localhost:5000/app", "Always"},
		{"app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"},
		{"app:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Always"},
		{"Registry.Example/app", "Always"},
		{"registry.example/App", "IfNotPresent"},
		{"", "IfNotPresent"},
	}
	for _, tt := range tests {
		if got := pullPolicyFor(tt.image); string(got) != tt.want {
			t.Errorf("pullPolicyFor(%q) = %s, want %s", tt.image, got, tt.want)
		}
	}
}
