package kubeletstub_test

import "testing"

func TestKubectlDiagnosticLinesAreLeftOutOfStderr(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a websocket error line before the output", "E1202 15:58:48.057265     486 websocket.go:296] Unknown stream id 1, discarding message\nto-errcommand terminated with exit code 3\n", "to-errcommand terminated with exit code 3\n"},
		{"output alone", "to-err", "to-err"},
		{"output that only looks like a log line in the middle", "to-err E1202 15:58:48.0 1 x] y\n", "to-err E1202 15:58:48.0 1 x] y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := withoutKlog(tc.in); got != tc.want {
				t.Fatalf("withoutKlog(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
