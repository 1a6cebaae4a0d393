package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// scalePoint is one Pod count of the scale curve, per library.
type scalePoint struct {
	n              int
	heapKB, syncUS [2]float64 // kubego, client-go
}

// scalePoints collects the scale rows of rep, by Pod count.
func (rep *report) scalePoints() []scalePoint {
	byN := map[int]*scalePoint{}
	for _, r := range rep.Rows {
		s, ok := strings.CutPrefix(r.Benchmark, "scale-")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			continue
		}
		p := byN[n]
		if p == nil {
			p = &scalePoint{n: n}
			byN[n] = p
		}
		switch r.Metric {
		case "live_heap_kb_per_obj":
			p.heapKB = [2]float64{r.Kubego, r.ClientGo}
		case "sync_us_per_obj":
			p.syncUS = [2]float64{r.Kubego, r.ClientGo}
		}
	}
	var ps []scalePoint
	for _, p := range byN {
		ps = append(ps, *p)
	}
	slices.SortFunc(ps, func(a, b scalePoint) int { return a.n - b.n })
	return ps
}

// writeScaleSVG writes scale.svg into dir when rep has at least two scale
// points; otherwise an earlier chart is left as it is.
func (rep *report) writeScaleSVG(dir string) error {
	ps := rep.scalePoints()
	if len(ps) < 2 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, "scale.svg"), []byte(scaleSVG(ps)), 0o644)
}

// scaleSVG draws two panels over the Pod count (log scale): live heap per
// Pod and sync time per Pod, one line per library.
func scaleSVG(ps []scalePoint) string {
	const (
		panelW, panelH = 360.0, 220.0
		left, top      = 60.0, 50.0
		gapX           = 90.0
	)
	width := left + 2*panelW + gapX + 30
	height := top + panelH + 70
	lo, hi := math.Log10(float64(ps[0].n)), math.Log10(float64(ps[len(ps)-1].n))
	if hi == lo {
		hi = lo + 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	b.WriteString(`<text x="10" y="20" font-size="14" font-weight="bold">Scale: the bench's Pods synced by one informer (medians; Pod count on a log scale)</text>` + "\n")
	colors := [2]string{"#3a6fd0", "#999999"}
	names := [2]string{"kubego", "client-go v0.37.2"}
	panel := func(x0 float64, title, unit string, val func(p scalePoint, i int) float64) {
		maxV := 0.0
		for _, p := range ps {
			maxV = max(maxV, val(p, 0), val(p, 1))
		}
		maxV = niceCeil(maxV)
		x := func(n int) float64 { return x0 + (math.Log10(float64(n))-lo)/(hi-lo)*panelW }
		y := func(v float64) float64 { return top + panelH - v/maxV*panelH }
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-weight="bold">%s</text>`+"\n", x0, top-12, title)
		for k := 0; k <= 4; k++ {
			v := maxV * float64(k) / 4
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x0, y(v), x0+panelW, y(v))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-6, y(v)+4, fmtNum(v))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">%s</text>`+"\n", x0-45, top+panelH/2, x0-45, top+panelH/2, unit)
		for _, p := range ps {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(p.n), top+panelH+18, p.n)
		}
		for i := range 2 {
			var pts []string
			for _, p := range ps {
				if v := val(p, i); v > 0 {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.n), y(v)))
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(p.n), y(v), colors[i])
					fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", x(p.n)+5, y(v)-6, colors[i], fmtNum(v))
				}
			}
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), colors[i])
			}
		}
	}
	panel(left, "live heap per Pod", "KiB per Pod", func(p scalePoint, i int) float64 { return p.heapKB[i] })
	panel(left+panelW+gapX, "sync time per Pod", "µs per Pod", func(p scalePoint, i int) float64 { return p.syncUS[i] })
	for i := range 2 {
		x := left + float64(i)*200
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="14" height="4" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n", x, height-22, colors[i], x+20, height-16, names[i])
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
