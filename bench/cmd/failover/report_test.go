package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkdownShowsMediansSideBySideAndFailures(t *testing.T) {
	rep := report{When: "now", Load: "1 → 2", Results: []result{
		{Scenario: "kubego/warm/term", Objects: 10, Elected: 0.01, First: 0.02, All: 0.5, Heap: 4, RSS: 30},
		{Scenario: "kubego/warm/term", Objects: 10, Elected: 0.03, First: 0.04, All: 0.7, Heap: 6, RSS: 32},
		{Scenario: "kubego/warm/term", Objects: 10, Elected: 0.05, First: 0.06, All: 0.9, Heap: 8, RSS: 34},
		{Scenario: "controller-runtime/warm/term", Objects: 10, Elected: 1, First: 1.5, All: 2, Heap: 5, RSS: 40},
		{Scenario: "controller-runtime/cold/kill", Objects: 10, Run: 1, Error: "no \"first\" after 15m\nmore"},
	}}
	md := rep.markdown()
	for _, want := range []string{
		"| 10 | SIGTERM | warm | 0.03 | 0.04 | 0.70 | 1.00 | 1.50 | 2.00 |",
		"| 10 | SIGKILL | cold | – | – | – | – | – | – |",
		"| 10 | warm | 6 | 32 | 5 | 40 |",
		"| 10 | SIGKILL | warm |",
		"controller-runtime/cold/kill, 10 objects, run 1: no \"first\" after 15m\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestUpdateDocReplacesOnlyTheSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "intro\n<!-- begin generated: failover (note) -->\nold\n<!-- end generated: failover -->\nafter\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := updateDoc(path, "failover", "new table\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "intro\n<!-- begin generated: failover (note) -->\n\nnew table\n\n<!-- end generated: failover -->\nafter\n"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := updateDoc(path, "other", "x"); err == nil {
		t.Fatal("a document without the section's markers was accepted")
	}
}
