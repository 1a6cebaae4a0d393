// Package measure holds the process measurements every benchmark binary of
// the suite reports the same way, whichever client library it drives: live
// heap after a full GC, peak RSS, bytes allocated, a heap sampler for peaks,
// optional CPU and heap profiles, and the one-JSON-line result format the
// runner reads.
package measure

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Result is what one benchmark process prints: one JSON object on one line
// of stdout. Metrics maps a metric name to its value; the runner compares
// metrics of the same name across libraries.
type Result struct {
	Impl     string             `json:"impl"`
	Scenario string             `json:"scenario"`
	Metrics  map[string]float64 `json:"metrics"`
	Notes    map[string]string  `json:"notes,omitempty"`
}

// Print writes r to stdout as one JSON line.
func Print(r Result) {
	b, err := json.Marshal(r)
	if err != nil {
		Fail(err)
	}
	fmt.Println(string(b))
}

// Fail prints err to stderr and exits with status 1.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

// PeakRSSBytes returns VmHWM from /proc/self/status (0 where unavailable).
func PeakRSSBytes() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				kb, _ := strconv.ParseFloat(fields[0], 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// LiveHeap runs two GCs and returns HeapAlloc and TotalAlloc. The caller
// keeps what must count as live reachable until after the call
// (runtime.KeepAlive).
func LiveHeap() (heapAlloc, totalAlloc float64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc), float64(ms.TotalAlloc)
}

// TotalAlloc returns the cumulative bytes allocated so far.
func TotalAlloc() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.TotalAlloc)
}

const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapLive    = "/gc/heap/live:bytes"
)

// Sampler reads the heap metrics every interval until Stop and remembers
// their peaks: heap objects (live and not yet collected garbage) and the
// live heap marked by the last GC.
type Sampler struct {
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	peakObj  uint64
	peakLive uint64
	n        int
}

// HeapNow returns the current heap-objects and live-heap metrics.
func HeapNow() (objects, live uint64) {
	s := []metrics.Sample{{Name: heapObjects}, {Name: heapLive}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// StartSampler starts sampling every interval.
func StartSampler(interval time.Duration) *Sampler {
	sm := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(sm.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			sm.sample()
			select {
			case <-sm.stop:
				sm.sample()
				return
			case <-t.C:
			}
		}
	}()
	return sm
}

func (sm *Sampler) sample() {
	o, l := HeapNow()
	sm.mu.Lock()
	sm.peakObj = max(sm.peakObj, o)
	sm.peakLive = max(sm.peakLive, l)
	sm.n++
	sm.mu.Unlock()
}

// Stop stops sampling and returns the peaks and the number of samples.
func (sm *Sampler) Stop() (peakObjects, peakLive uint64, samples int) {
	close(sm.stop)
	<-sm.done
	sm.mu.Lock()
	defer sm.mu.Unlock()
	return sm.peakObj, sm.peakLive, sm.n
}

// Profiles starts a CPU profile when cpu is set; the returned function
// stops it and writes a heap profile when heap is set.
func Profiles(cpu, heap string) func() {
	var cf *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			Fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			Fail(err)
		}
		cf = f
	}
	return func() {
		if cf != nil {
			pprof.StopCPUProfile()
			cf.Close()
		}
		if heap != "" {
			f, err := os.Create(heap)
			if err != nil {
				Fail(err)
			}
			runtime.GC()
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				Fail(err)
			}
			f.Close()
		}
	}
}

// Percentile returns the p-th percentile (0..100) of xs, sorting xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	i := int(float64(len(xs)-1) * p / 100)
	return xs[i]
}

// CPUSeconds returns the user and system CPU time the process has used
// (getrusage), 0 where unavailable.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
