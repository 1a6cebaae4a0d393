package rest

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
)

// modulePath is kubego's module, whose version the default User-Agent
// names.
const modulePath = "github.com/kubego/kubego"

// UserAgent returns the User-Agent the client sends with requests that set
// none: Config.UserAgent, or DefaultUserAgent.
func (c *Client) UserAgent() string {
	if c == nil {
		return ""
	}
	return c.agent
}

// FieldManager returns the field manager kube-apiserver names a write
// without one after: the User-Agent up to its first "/", trimmed and cut to
// the 128 characters the server accepts, or "kubego" for an empty one.
// Server-side apply needs a field manager, so clients send this one.
func (c *Client) FieldManager() string { return fieldManagerOf(c.UserAgent()) }

func fieldManagerOf(agent string) string {
	name, _, _ := strings.Cut(agent, "/")
	if name = strings.TrimSpace(name); name == "" {
		return "kubego"
	}
	if len(name) > maxFieldManagerLen {
		name = name[:maxFieldManagerLen]
	}
	return name
}

// maxFieldManagerLen is the longest field manager name the server accepts.
const maxFieldManagerLen = 128

// DefaultUserAgent returns the User-Agent of a Config that sets none, of
// the usual form "<program>/<version> (<os>/<arch>) kubego/<version>".
// The program is the base name of os.Args[0] and its version the main
// module's; a version the build does not record is "v0.0.0". kube-apiserver
// names the field manager of a write that gives none after the User-Agent
// up to its first "/": the program's name.
func DefaultUserAgent() string {
	prog := "unknown"
	if len(os.Args) > 0 && os.Args[0] != "" {
		prog = strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	}
	progVersion, kubegoVersion := "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		progVersion = bi.Main.Version
		if bi.Main.Path == modulePath {
			kubegoVersion = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				kubegoVersion = d.Version
			}
		}
	}
	return userAgent(prog, progVersion, goruntime.GOOS, goruntime.GOARCH, kubegoVersion)
}

// userAgent formats a User-Agent from its parts, replacing characters a
// product token cannot hold and unknown versions.
func userAgent(prog, progVersion, goos, goarch, kubegoVersion string) string {
	return token(prog, "unknown") + "/" + version(progVersion) + " (" + goos + "/" + goarch + ") kubego/" + version(kubegoVersion)
}

func version(v string) string {
	if v == "" || v == "(devel)" {
		return "v0.0.0"
	}
	return token(v, "v0.0.0")
}

// token replaces the characters that would break the User-Agent's
// structure (separators, spaces, controls) with "-"; an empty result is
// def.
func token(s, def string) string {
	s = strings.Map(func(r rune) rune {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r) {
			return '-'
		}
		return r
	}, s)
	if s == "" {
		return def
	}
	return s
}
