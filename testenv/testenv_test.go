package testenv

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestPinsMatchToolsModules(t *testing.T) {
	for _, v := range Versions() {
		p, err := pinsFor(v)
		if err != nil {
			t.Fatal(err)
		}
		dir := "../hack/controlplane"
		if v != DefaultVersion {
			dir += "/v" + v
		}
		for _, f := range []struct {
			embedded []byte
			name     string
		}{{p.goMod, "go.mod"}, {p.goSum, "go.sum"}, {p.tools, "tools.go"}} {
			want, err := os.ReadFile(dir + "/" + f.name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.embedded, want) {
				t.Errorf("embedded copy of %s/%s is stale: run go generate ./testenv", dir, f.name)
			}
		}
		if v != DefaultVersion && !bytes.Contains(p.goMod, []byte("k8s.io/kubernetes v"+v+".")) {
			t.Errorf("the pins of %s do not require k8s.io/kubernetes v%s.x", v, v)
		}
	}
}

func TestPinHashChangesWithPins(t *testing.T) {
	p, err := pinsFor(DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	before := p.hash()
	p.goMod = append(append([]byte(nil), p.goMod...), []byte("\n// changed\n")...)
	if p.hash() == before {
		t.Fatal("a change of the pinned go.mod must change the build hash")
	}
	hashes := map[string]string{}
	for _, v := range Versions() {
		q, _ := pinsFor(v)
		if other, ok := hashes[q.hash()]; ok {
			t.Fatalf("versions %s and %s share a build hash", v, other)
		}
		hashes[q.hash()] = v
	}
}

func TestVersions(t *testing.T) {
	got := Versions()
	if len(got) != 4 || got[0] != "1.34" || got[len(got)-1] != DefaultVersion {
		t.Fatalf("Versions() = %v", got)
	}
	t.Setenv(EnvVersion, "")
	tests := []struct {
		in, env, want string
		wantErr       bool
	}{
		{in: "", want: DefaultVersion},
		{in: "1.35", want: "1.35"},
		{in: "", env: "1.34", want: "1.34"},
		{in: "1.36", env: "1.34", want: "1.36"},
		{in: "1.20", wantErr: true},
		{in: "", env: "latest", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in+"/"+tt.env, func(t *testing.T) {
			t.Setenv(EnvVersion, tt.env)
			got, err := resolveVersion(tt.in)
			var uv *UnknownVersionError
			if tt.wantErr != errors.As(err, &uv) || got != tt.want {
				t.Fatalf("resolveVersion(%q) with env %q = %q, %v", tt.in, tt.env, got, err)
			}
		})
	}
}

func TestRingBufferKeepsTheTail(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{"under capacity keeps all", 10, []string{"ab", "cd"}, "abcd"},
		{"over capacity keeps last bytes", 4, []string{"abc", "def"}, "cdef"},
		{"one huge write keeps its end", 3, []string{"abcdefgh"}, "fgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRingBuffer(tt.size)
			for _, w := range tt.writes {
				r.Write([]byte(w))
			}
			if got := r.String(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStaticTokensRejectBadLines(t *testing.T) {
	tests := []struct {
		name string
		tok  StaticToken
	}{
		{"empty token", StaticToken{User: "u"}},
		{"empty user", StaticToken{Token: "secret-token-1"}},
		{"comma in token", StaticToken{Token: "secret,token", User: "u"}},
		{"newline in user", StaticToken{Token: "secret-token-2", User: "u\nx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := &ControlPlane{dir: t.TempDir(), opts: Options{StaticTokens: []StaticToken{tt.tok}}}
			err := cp.writeTokenFile()
			if err == nil {
				t.Fatal("want an error")
			}
			if tt.tok.Token != "" && strings.Contains(err.Error(), tt.tok.Token) {
				t.Fatalf("error leaks the token: %v", err)
			}
		})
	}
}

func TestSweepRemovesOnlyDeadOwnersDirectories(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name, owner string) string {
		dir := tmp + "/" + name
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			os.WriteFile(dir+"/"+ownerFile, []byte(owner), 0o600)
		}
		return dir
	}
	dead := mk(tempPrefix+"dead", "999999999")
	alive := mk(tempPrefix+"alive", strconv.Itoa(os.Getppid()))
	noOwner := mk(tempPrefix+"noowner", "")
	other := mk("someone-else", "999999999")
	sweepStale(tmp)
	for dir, wantExists := range map[string]bool{dead: false, alive: true, noOwner: true, other: true} {
		_, err := os.Stat(dir)
		if exists := err == nil; exists != wantExists {
			t.Errorf("%s: exists=%v, want %v", dir, exists, wantExists)
		}
	}
}

func TestEveryVersionIsStampedLikeARelease(t *testing.T) {
	for _, v := range Versions() {
		t.Run(v, func(t *testing.T) {
			p, err := pinsFor(v)
			if err != nil {
				t.Fatal(err)
			}
			kv := p.kubernetesVersion()
			if !strings.HasPrefix(kv, "v"+v+".") {
				t.Fatalf("tools module of %s requires k8s.io/kubernetes %q", v, kv)
			}
			flags := p.ldflags()
			for _, want := range []string{"-s -w", "k8s.io/component-base/version.gitVersion=" + kv, "k8s.io/component-base/version.gitMinor=" + strings.TrimPrefix(v, "1."), "k8s.io/client-go/pkg/version.gitVersion=" + kv} {
				if !strings.Contains(flags, want) {
					t.Errorf("ldflags %q lack %q", flags, want)
				}
			}
		})
	}
}
