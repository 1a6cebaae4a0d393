package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// svg draws one horizontal bar per compared, shown metric: the ratio
// kubego / client-go on a log scale, with the parity line at 1.
func (rep *report) svg() string {
	var rows []row
	for _, r := range rep.Rows {
		if contains(shown[r.Benchmark], r.Metric) && len(r.CGAll) > 0 && r.Ratio > 0 {
			rows = append(rows, r)
		}
	}
	const (
		left, barH, gap, width = 330.0, 16.0, 6.0, 820.0
		plotW                  = width - left - 90
	)
	// log2 scale from 1/8 to 8.
	x := func(v float64) float64 {
		l := math.Log2(v)
		l = math.Max(-3, math.Min(3, l))
		return left + (l+3)/6*plotW
	}
	height := 60 + float64(len(rows))*(barH+gap) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">kubego / client-go v0.37.2 (medians, %d Pods, %d runs; log scale, left of 1 = kubego smaller)</text>`+"\n", rep.Pods, rep.Runs)
	for _, t := range []float64{0.125, 0.25, 0.5, 1, 2, 4, 8} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="35" x2="%.1f" y2="%.0f" stroke="%s"/>`+"\n", x(t), x(t), height-25, map[bool]string{true: "#333", false: "#ddd"}[t == 1])
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%g</text>`+"\n", x(t), height-10, t)
	}
	for i, r := range rows {
		y := 45 + float64(i)*(barH+gap)
		x0, x1 := x(1), x(r.Ratio)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		color := "#4a7bd0"
		if r.Met != nil && !*r.Met {
			color = "#d04a4a"
		} else if r.Met != nil {
			color = "#3a9a4a"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y+barH-4, html.EscapeString(svgLabel(r)))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="%s"/>`+"\n", x0, y, math.Max(x1-x0, 1), barH, color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%.2f</text>`+"\n", width-80, y+barH-4, r.Ratio)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// svgLabel names a bar; the controller benchmarks' bars say that their
// ratio is to controller-runtime.
func svgLabel(r row) string {
	if isCR(r.Benchmark) {
		return r.Benchmark + " · " + r.Metric + " (/ controller-runtime)"
	}
	return r.Benchmark + " · " + r.Metric
}
