package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kubego/kubego/bench/internal/measure"
)

// A replica tells the runner what happens to it by JSON lines on its
// stdout, each stamped with the wall clock (the runner and the replicas
// share the machine, so their clocks are one):
//
//	{"ev":"leading","at":...}            it won the Lease
//	{"ev":"first","at":...}              its first reconcile began
//	{"ev":"all","at":...}                it has reconciled -n objects
//	{"ev":"standby","at":...,"heap":...,"rss":...}
//	                                     as a replica that does not lead: its
//	                                     caches synced (warm) or, cold, after
//	                                     -cold-settle; live heap after two GCs
//	                                     and RSS, in bytes
type event struct {
	Ev   string  `json:"ev"`
	At   int64   `json:"at"`
	Heap float64 `json:"heap,omitempty"`
	RSS  float64 `json:"rss,omitempty"`
}

// replicaFlags are a replica's command line (after -replica IMPL).
type replicaFlags struct {
	namespace  string // of the ConfigMaps and the Lease
	lease      string
	identity   string
	n          int  // objects: "all" is told after this many reconciles
	warm       bool // warm standby (kubego StandbyWarm, controller-runtime EnableWarmup)
	coldSettle time.Duration
}

// reporter prints the events; each kind once.
type reporter struct {
	mu   sync.Mutex
	told map[string]bool
}

func (r *reporter) tell(e event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.told == nil {
		r.told = map[string]bool{}
	}
	if r.told[e.Ev] {
		return
	}
	r.told[e.Ev] = true
	if e.At == 0 {
		e.At = time.Now().UnixNano()
	}
	b, _ := json.Marshal(e)
	fmt.Fprintln(os.Stdout, string(b))
}

// counter counts reconciles and tells the first one and the n-th.
type counter struct {
	r *reporter
	n int

	mu    sync.Mutex
	count int
}

func (c *counter) reconciled() {
	c.mu.Lock()
	c.count++
	k := c.count
	c.mu.Unlock()
	if k == 1 {
		c.r.tell(event{Ev: "first"})
	}
	if k == c.n {
		c.r.tell(event{Ev: "all"})
	}
}

// standbyMemory tells the standby event with the live heap and RSS now.
func (r *reporter) standbyMemory() {
	heap, _ := measure.LiveHeap()
	r.tell(event{Ev: "standby", Heap: heap, RSS: rssBytes()})
}
