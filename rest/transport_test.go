package rest

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"weak"
)

// The process-wide transport cache must not grow without bound: an entry
// whose transport no client uses any more is removed once the transport is
// collected.
func TestTransportCacheForgetsUnusedTransports(t *testing.T) {
	tc := &transportCache{m: map[transportKey]weak.Pointer[http.Transport]{}}
	const n = 100
	kept := tc.get(transportKey{serverName: "kept"}, func() *http.Transport { return &http.Transport{} })
	for i := range n {
		tc.get(transportKey{serverName: fmt.Sprint(i)}, func() *http.Transport { return &http.Transport{} })
	}
	if got := tc.len(); got != n+1 {
		t.Fatalf("cache holds %d entries, want %d", got, n+1)
	}
	// Cleanups run on their own goroutine after a collection: collect and
	// yield until they have run.
	for i := 0; i < 1000 && tc.len() > 1; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := tc.len(); got != 1 {
		t.Fatalf("cache holds %d entries after the transports were dropped, want 1 (the one in use)", got)
	}
	if again := tc.get(transportKey{serverName: "kept"}, func() *http.Transport { return &http.Transport{} }); again != kept {
		t.Fatal("the transport in use was not shared")
	}
	runtime.KeepAlive(kept)
}
