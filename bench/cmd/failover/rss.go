package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// rssBytes returns VmRSS of process pid ("self" for this one) from
// /proc, 0 where unavailable.
func rssOf(pid string) float64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				kb, _ := strconv.ParseFloat(fields[0], 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func rssBytes() float64 { return rssOf("self") }
