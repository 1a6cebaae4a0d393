package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// report is what failover.json holds.
type report struct {
	When    string   `json:"when"`
	Load    string   `json:"load_average"` // at the start → at the end
	Results []result `json:"results"`
}

func write(o options, results []result, load string) error {
	rep := report{When: time.Now().UTC().Format(time.RFC3339), Load: load, Results: results}
	return rep.write(o)
}

func (rep report) write(o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "failover.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	md := rep.markdown()
	if err := os.WriteFile(filepath.Join(o.out, "failover.md"), []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Print(md)
	if o.docs == "" {
		return nil
	}
	return updateDoc(filepath.Join(o.docs, "docs", "failover.md"), "failover", md)
}

// median returns the median of the field get of the runs of one scenario
// and size without error, and how many there were.
func (rep report) median(scenario string, n int, get func(result) float64) (float64, int) {
	var xs []float64
	for _, r := range rep.Results {
		if r.Scenario == scenario && r.Objects == n && r.Error == "" {
			xs = append(xs, get(r))
		}
	}
	if len(xs) == 0 {
		return 0, 0
	}
	return median(xs), len(xs)
}

// median returns the middle value of xs, or the mean of the two middle
// ones.
func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	k := len(xs) / 2
	if len(xs)%2 == 0 {
		return (xs[k-1] + xs[k]) / 2
	}
	return xs[k]
}

// render writes failover.md and the docs' section again from
// failover.json.
func render(o options) error {
	b, err := os.ReadFile(filepath.Join(o.out, "failover.json"))
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	return rep.write(o)
}

func (rep report) sizes() []int {
	var ns []int
	for _, r := range rep.Results {
		if !slices.Contains(ns, r.Objects) {
			ns = append(ns, r.Objects)
		}
	}
	slices.Sort(ns)
	return ns
}

func (rep report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s, load average %s (two cores, shared). Times from the leader's signal, in seconds (median of the runs); lease 15 s, renew deadline 10 s, retry period 2 s, release on cancel.\n\n", rep.When, rep.Load)
	b.WriteString("| objects | leader | standby | kubego: elected | first reconcile | all reconciled | controller-runtime: elected | first reconcile | all reconciled |\n")
	b.WriteString("|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
	stops := map[string]string{"term": "SIGTERM", "kill": "SIGKILL"}
	for _, n := range rep.sizes() {
		for _, stop := range []string{"term", "kill"} {
			for _, standby := range []string{"warm", "cold"} {
				fmt.Fprintf(&b, "| %d | %s | %s |", n, stops[stop], standby)
				for _, impl := range []string{"kubego", "controller-runtime"} {
					sc := impl + "/" + standby + "/" + stop
					for _, get := range []func(result) float64{
						func(r result) float64 { return r.Elected },
						func(r result) float64 { return r.First },
						func(r result) float64 { return r.All },
					} {
						if v, k := rep.median(sc, n, get); k > 0 {
							fmt.Fprintf(&b, " %.2f |", v)
						} else {
							b.WriteString(" – |")
						}
					}
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\nThe standby's memory before it leads (live heap after two GCs / RSS, MiB; median of its runs):\n\n")
	b.WriteString("| objects | standby | kubego heap | kubego RSS | controller-runtime heap | controller-runtime RSS |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|\n")
	for _, n := range rep.sizes() {
		for _, standby := range []string{"warm", "cold"} {
			fmt.Fprintf(&b, "| %d | %s |", n, standby)
			for _, impl := range []string{"kubego", "controller-runtime"} {
				for _, get := range []func(result) float64{
					func(r result) float64 { return r.Heap },
					func(r result) float64 { return r.RSS },
				} {
					var xs []float64
					for _, stop := range []string{"term", "kill"} {
						if v, k := rep.median(impl+"/"+standby+"/"+stop, n, get); k > 0 {
							xs = append(xs, v)
						}
					}
					if len(xs) == 0 {
						b.WriteString(" – |")
						continue
					}
					fmt.Fprintf(&b, " %.0f |", median(xs))
				}
			}
			b.WriteString("\n")
		}
	}
	var failed []string
	for _, r := range rep.Results {
		if r.Error != "" {
			failed = append(failed, fmt.Sprintf("- %s, %d objects, run %d: %s", r.Scenario, r.Objects, r.Run, firstLine(r.Error)))
		}
	}
	if len(failed) > 0 {
		b.WriteString("\nRuns that failed (left out above):\n\n" + strings.Join(failed, "\n") + "\n")
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

const (
	beginMarker = "<!-- begin generated: %s"
	endMarker   = "<!-- end generated: %s -->"
)

// updateDoc replaces the generated section name of the document at path
// with content.
func updateDoc(path, name, content string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin := []byte(fmt.Sprintf(beginMarker, name))
	end := []byte(fmt.Sprintf(endMarker, name))
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s: generated-section markers of %q not found", path, name)
	}
	k := bytes.IndexByte(doc[i:], '\n')
	if k < 0 || i+k > j {
		return fmt.Errorf("%s: malformed begin marker of %q", path, name)
	}
	var out bytes.Buffer
	out.Write(doc[:i+k+1])
	out.WriteString("\n" + content + "\n")
	out.Write(doc[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
