package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsMatchTheLatestResults fails when README.md or
// docs/performance.md shows figures other than bench/results/latest.json
// (re-render with `go run ./cmd/runner -render` in bench/).
func TestDocsMatchTheLatestResults(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "results", "latest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	rep.registerRows()
	root := filepath.Join("..", "..", "..")
	for path, sections := range rep.generatedDocs() {
		doc, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range sections {
			got, err := section(doc, name)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if strings.TrimSpace(got) != strings.TrimSpace(want) {
				t.Errorf("%s: section %q differs from bench/results/latest.json; run `cd bench && go run ./cmd/runner -render`\n got:\n%s\nwant:\n%s", path, name, got, want)
			}
		}
	}
}

func TestReplaceSectionKeepsTheMarkersAndTheRest(t *testing.T) {
	for _, tc := range []struct {
		name, doc, content, want string
		err                      error
	}{
		{
			name:    "content replaced between the markers",
			doc:     "intro\n<!-- begin generated: x (note) -->\nold\nrows\n<!-- end generated: x -->\nafter\n",
			content: "new\n",
			want:    "intro\n<!-- begin generated: x (note) -->\nnew\n<!-- end generated: x -->\nafter\n",
		},
		{
			name:    "a missing newline is added",
			doc:     "<!-- begin generated: x -->\n<!-- end generated: x -->\n",
			content: "line",
			want:    "<!-- begin generated: x -->\nline\n<!-- end generated: x -->\n",
		},
		{
			name: "no markers is an error",
			doc:  "nothing here\n",
			err:  errNoMarkers,
		},
		{
			name: "a begin without an end is an error",
			doc:  "<!-- begin generated: x -->\nold\n",
			err:  errNoMarkers,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replaceSection([]byte(tc.doc), "x", tc.content)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err == nil && string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestHeadlineNamesThePodCountOfItsRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  report
		want string
	}{
		{"a row of the report's own run", report{Pods: 100000, Rows: []row{{Benchmark: "sync", Metric: "live_heap_mb", Kubego: 1, ClientGo: 2, Ratio: 0.5}}}, "informer cache of 100,000 realistic Pods"},
		{"a row kept from an earlier run", report{Pods: 2000, Rows: []row{{Benchmark: "sync", Metric: "live_heap_mb", Kubego: 1, ClientGo: 2, Ratio: 0.5, From: "run of 2026-12-02T14:26:58Z, 20000 Pods"}}}, "informer cache of 20,000 realistic Pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rep.headlineTable(); !strings.Contains(got, tc.want) {
				t.Errorf("headline = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
