package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/rest"
)

// mode is one way of labeling the Deployments: the bare loop or the
// labeler (examples/labeler), with optional variants for experiments,
// written as suffixes:
//
//	+nogzip   rest.Config.DisableCompression (no gzip on lists and on the
//	          labeler's watch, which kube-apiserver 1.37 compresses per
//	          flush when it began as a watch-list)
//	+watch    (bare) run the labeler's informer (metadata of the
//	          Deployments lacking the label) beside the bare loop, with
//	          no controller: the cost of the watch alone
type mode struct {
	name    string
	bare    bool
	watch   bool
	noGzip  bool
	labeler labeler.Options
}

func parseModes(list string) ([]mode, error) {
	var out []mode
	for _, name := range strings.Split(list, ",") {
		parts := strings.Split(name, "+")
		m := mode{name: name}
		switch parts[0] {
		case "bare":
			m.bare = true
		case "labeler":
		default:
			return nil, fmt.Errorf("mode %q: want bare or labeler", name)
		}
		for _, v := range parts[1:] {
			switch v {
			case "nogzip":
				m.noGzip = true
			case "watch":
				if !m.bare {
					return nil, fmt.Errorf("mode %q: watch applies to bare", name)
				}
				m.watch = true
			default:
				return nil, fmt.Errorf("mode %q: unknown variant %q", name, v)
			}
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no modes")
	}
	return out, nil
}

func (m mode) configure(cfg *rest.Config) {
	if m.noGzip {
		cfg.DisableCompression = true
	}
}

// modeStats collects one mode's runs.
type modeStats struct{ wall, client, server []float64 }

func (s *modeStats) add(wall, client, server time.Duration) {
	s.wall = append(s.wall, wall.Seconds())
	s.client = append(s.client, client.Seconds())
	s.server = append(s.server, server.Seconds())
}

// printSummary prints each mode's medians, and its wall-time ratio to the
// bare mode's. The first line keeps the historical format.
func printSummary(modes []mode, stats map[string]*modeStats) {
	bare, ctl := stats["bare"], stats["labeler"]
	if bare != nil && ctl != nil {
		fmt.Printf("median bare %.3fs, labeler %.3fs, ratio labeler/bare %.3f\n", median(bare.wall), median(ctl.wall), median(ctl.wall)/median(bare.wall))
	}
	for _, m := range modes {
		s := stats[m.name]
		if s == nil {
			continue
		}
		line := fmt.Sprintf("%-24s wall %.3fs  client cpu %.2fs  server cpu %.2fs  total cpu %.2fs", m.name, median(s.wall), median(s.client), median(s.server), median(sum(s.client, s.server)))
		if bare != nil && !m.bare {
			line += fmt.Sprintf("  /bare: wall %.3f, total cpu %.3f", median(s.wall)/median(bare.wall), median(sum(s.client, s.server))/median(sum(bare.client, bare.server)))
		}
		fmt.Println(line)
	}
}

func sum(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}
