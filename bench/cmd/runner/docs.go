package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The repository's documents carry sections the runner writes from
// latest.json, between a begin and an end marker, so that no figure of
// theirs is copied by hand:
//
//	<!-- begin generated: NAME (make bench writes this from bench/results/latest.json) -->
//	...
//	<!-- end generated: NAME -->
//
// README.md holds the "headline" (five rows), docs/performance.md the
// "results" (every row latest.md shows).
const (
	beginMarker = "<!-- begin generated: %s"
	endMarker   = "<!-- end generated: %s -->"
)

// errNoMarkers is returned when a document lacks a section's markers.
var errNoMarkers = errors.New("generated-section markers not found")

// headlineRow is one row of the README's headline table.
type headlineRow struct {
	bench, metric, label string
}

// headline is what README.md shows of a run: memory, speed, and the
// controller against controller-runtime.
var headline = []headlineRow{
	{"sync", "live_heap_mb", "informer cache of %s realistic Pods: live heap (MiB)"},
	{"sync", "peak_rss_mb", "the same informer: peak RSS (MiB)"},
	{"sync", "sync_seconds", "its initial sync (s)"},
	{"cr-coldstart", "coldstart_seconds", "sample controller cold start over 20,000 objects (s)"},
	{"workqueue", "adds_per_sec", "workqueue: adds per second"},
}

// generatedDocs lists each document the runner keeps, relative to the
// repository root, with the sections it writes.
func (rep *report) generatedDocs() map[string]map[string]string {
	return map[string]map[string]string{
		"README.md":           {"headline": rep.headlineTable()},
		"docs/performance.md": {"results": rep.table()},
	}
}

// headlineTable renders the headline rows as Markdown; a row missing from
// the report says so.
func (rep *report) headlineTable() string {
	var b strings.Builder
	b.WriteString("| measure | kubego | client-go or controller-runtime | ratio |\n|---|---:|---:|---:|\n")
	for _, h := range headline {
		i := rep.find(h.bench, h.metric)
		if i < 0 {
			fmt.Fprintf(&b, "| %s | not measured | | |\n", h.label)
			continue
		}
		r := rep.Rows[i]
		label := h.label
		if strings.Contains(label, "%s") {
			label = fmt.Sprintf(label, rep.podsOf(r))
		}
		other := "client-go"
		if isCR(r.Benchmark) {
			other = "controller-runtime"
		}
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %.2f |\n", label, fmtNum(r.Kubego), fmtNum(r.ClientGo), other, r.Ratio)
	}
	return b.String()
}

// podsOf returns the Pod count row r was measured with, with thousands
// separated: the report's own for its rows, the one its From names for a
// kept row ("run of <time>, N Pods").
func (rep *report) podsOf(r row) string {
	n := rep.Pods
	if r.From != "" {
		f := strings.Fields(r.From)
		if len(f) >= 2 && f[len(f)-1] == "Pods" {
			if v, err := strconv.Atoi(f[len(f)-2]); err == nil {
				n = v
			}
		}
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// find returns the index of a row, or -1.
func (rep *report) find(bench, metric string) int {
	for i, r := range rep.Rows {
		if r.Benchmark == bench && r.Metric == metric {
			return i
		}
	}
	return -1
}

// updateDocs rewrites the generated sections of the documents under root
// (the repository root).
func (rep *report) updateDocs(root string) error {
	for path, sections := range rep.generatedDocs() {
		full := filepath.Join(root, path)
		doc, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		for name, content := range sections {
			if doc, err = replaceSection(doc, name, content); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		if err := os.WriteFile(full, doc, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// replaceSection returns doc with the section name's content replaced:
// the marker lines are kept, everything between them is content.
func replaceSection(doc []byte, name, content string) ([]byte, error) {
	begin := []byte(fmt.Sprintf(beginMarker, name))
	end := []byte(fmt.Sprintf(endMarker, name))
	i := bytes.Index(doc, begin)
	if i < 0 {
		return nil, fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	nl := bytes.IndexByte(doc[i:], '\n')
	if nl < 0 {
		return nil, fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	start := i + nl + 1
	j := bytes.Index(doc[start:], end)
	if j < 0 {
		return nil, fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	var out bytes.Buffer
	out.Write(doc[:start])
	out.WriteString(strings.TrimLeft(content, "\n"))
	if !strings.HasSuffix(content, "\n") {
		out.WriteByte('\n')
	}
	out.Write(doc[start+j:])
	return out.Bytes(), nil
}

// section returns the content of the section name of doc.
func section(doc []byte, name string) (string, error) {
	begin := []byte(fmt.Sprintf(beginMarker, name))
	end := []byte(fmt.Sprintf(endMarker, name))
	i := bytes.Index(doc, begin)
	if i < 0 {
		return "", fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	nl := bytes.IndexByte(doc[i:], '\n')
	if nl < 0 {
		return "", fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	start := i + nl + 1
	j := bytes.Index(doc[start:], end)
	if j < 0 {
		return "", fmt.Errorf("section %q: %w", name, errNoMarkers)
	}
	return string(doc[start : start+j]), nil
}
