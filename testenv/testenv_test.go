package testenv

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestPinsMatchToolsModule(t *testing.T) {
	for _, f := range []struct {
		embedded []byte
		path     string
	}{
		{pinnedGoMod, "../hack/controlplane/go.mod"},
		{pinnedGoSum, "../hack/controlplane/go.sum"},
		{pinnedTools, "../hack/controlplane/tools.go"},
	} {
		want, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.embedded, want) {
			t.Errorf("embedded copy of %s is stale: run go generate ./testenv", f.path)
		}
	}
}

func TestPinHashChangesWithPins(t *testing.T) {
	before := pinHash()
	saved := pinnedGoMod
	t.Cleanup(func() { pinnedGoMod = saved })
	pinnedGoMod = append(append([]byte(nil), saved...), []byte("\n// changed\n")...)
	if pinHash() == before {
		t.Fatal("a change of the pinned go.mod must change the build hash")
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
