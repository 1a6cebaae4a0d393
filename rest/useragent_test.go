package rest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestUserAgentFormat(t *testing.T) {
	tests := []struct {
		name                                string
		prog, progVersion, os, arch, kgVers string
		want                                string
	}{
		{"names program, platform and kubego", "foo", "v1.2.3", "linux", "amd64", "v0.4.0", "foo/v1.2.3 (linux/amd64) kubego/v0.4.0"},
		{"unknown versions read v0.0.0", "foo.test", "", "linux", "arm64", "(devel)", "foo.test/v0.0.0 (linux/arm64) kubego/v0.0.0"},
		{"separators in the program name are replaced", "my prog/x", "v1", "darwin", "arm64", "v1", "my-prog-x/v1 (darwin/arm64) kubego/v1"},
		{"empty program is unknown", "", "v1", "linux", "amd64", "v1", "unknown/v1 (linux/amd64) kubego/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := userAgent(tt.prog, tt.progVersion, tt.os, tt.arch, tt.kgVers); got != tt.want {
				t.Errorf("userAgent = %q, want %q", got, tt.want)
			}
		})
	}
}

// The server names the default field manager after the User-Agent up to
// its first "/": with the default agent that is the program's name.
func TestDefaultUserAgentStartsWithProgramName(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("User-Agent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, err := NewClient(&Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if c.UserAgent() != DefaultUserAgent() {
		t.Errorf("UserAgent() = %q, want the default %q", c.UserAgent(), DefaultUserAgent())
	}
	if _, err := c.Get().AbsPath("/version").DoRaw(t.Context()); err != nil {
		t.Fatal(err)
	}
	prog, _, _ := strings.Cut(got, "/")
	if prog != "rest.test" {
		t.Errorf("User-Agent %q: field manager would be %q, want the program name rest.test", got, prog)
	}
	if !strings.Contains(got, ") kubego/") {
		t.Errorf("User-Agent %q does not name kubego", got)
	}
}

func TestFieldManagerIsTheUserAgentsProgram(t *testing.T) {
	long := strings.Repeat("p", 200)
	tests := []struct{ agent, want string }{
		{"shipper/v1.2.3 (linux/amd64) kubego/v0.4.0", "shipper"},
		{"kubectl", "kubectl"},
		{" spaced /v1", "spaced"},
		{"/v1", "kubego"},
		{long + "/v1", long[:128]},
	}
	for _, tt := range tests {
		if got := fieldManagerOf(tt.agent); got != tt.want {
			t.Errorf("fieldManagerOf(%q) = %q, want %q", tt.agent, got, tt.want)
		}
	}
}
