package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeShowsThisProgram fails when a Go block of README.md marked
// with a source comment is not, line for line, a part of the file it
// names: the README's controller is this program, compiled and tested.
func TestReadmeShowsThisProgram(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 200 {
		t.Errorf("README.md has %d lines: keep the front door to 200 and move the rest to docs/", n)
	}
	const marker = "<!-- source: "
	blocks := 0
	rest := string(readme)
	for {
		i := strings.Index(rest, marker)
		if i < 0 {
			break
		}
		rest = rest[i+len(marker):]
		path, after, ok := strings.Cut(rest, " -->\n```go\n")
		if !ok {
			t.Fatalf("README.md: a source comment must be followed by a ```go block")
		}
		code, tail, ok := strings.Cut(after, "```\n")
		if !ok {
			t.Fatalf("README.md: the block from %s is not closed", path)
		}
		rest = tail
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("README.md names %s: %v", path, err)
		}
		if !strings.Contains(string(src), code) {
			t.Errorf("README.md's block from %s is not a part of that file; copy it again", path)
		}
		blocks++
	}
	if blocks < 2 {
		t.Fatalf("README.md shows %d blocks from the repository, want the controller and its test", blocks)
	}
}
