package weakcache

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

// value is larger than the runtime's tiny-allocation size (16 bytes of
// pointer-free data), so that each value is its own allocation: tiny
// values share a block, and one in use keeps its neighbours' cleanups
// from running.
type value struct {
	n   int
	pad [16]byte
}

// A Map must not grow without bound: an entry whose value no one uses any
// more is removed once the value is collected, and a value in use is
// shared.
func TestMapForgetsUnusedValues(t *testing.T) {
	c := New[int, value]()
	const n = 100
	kept, _ := c.Get(-1, func() (*value, error) { return &value{n: -1}, nil })
	for i := range n {
		_, _ = c.Get(i, func() (*value, error) { return &value{n: i}, nil })
	}
	if got := c.Len(); got != n+1 {
		t.Fatalf("Len = %d, want %d", got, n+1)
	}
	// Cleanups run on their own goroutine after a collection, which a
	// loaded machine may not schedule for a while: collect, then wait for
	// a sentinel's cleanup from the same collection, until the values are
	// gone or a generous bound passes.
	for deadline := time.Now().Add(time.Minute); c.Len() > 1 && time.Now().Before(deadline); {
		collectAndWaitForCleanups()
	}
	if got := c.Len(); got != 1 {
		t.Fatalf("Len = %d after the values were dropped, want 1 (the one in use)", got)
	}
	again, _ := c.Get(-1, func() (*value, error) { return &value{n: -2}, nil })
	if again != kept {
		t.Fatal("the value in use was not shared")
	}
	runtime.KeepAlive(kept)
}

func TestGetRemembersNothingOnError(t *testing.T) {
	c := New[string, value]()
	boom := errors.New("boom")
	if _, err := c.Get("k", func() (*value, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if c.Len() != 0 {
		t.Fatal("a failed build was remembered")
	}
	v, err := c.Get("k", func() (*value, error) { return &value{n: 1}, nil })
	if err != nil || v.n != 1 {
		t.Fatalf("Get after a failure = %v, %v", v, err)
	}
	runtime.KeepAlive(v)
}

// collectAndWaitForCleanups runs a collection and waits (up to a second)
// until the cleanup of an object unreachable in it has run.
func collectAndWaitForCleanups() {
	ran := make(chan struct{})
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(ch chan struct{}) { close(ch) }, ran)
	sentinel = nil
	runtime.GC()
	select {
	case <-ran:
	case <-time.After(time.Second):
	}
}
