package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/kubego/kubego/rest"
)

// serverProfile fetches a CPU profile of kube-apiserver covering the next
// d (its /debug/pprof/profile endpoint, served with --profiling, the
// default) and writes it to path. It returns at once; wait on the
// returned channel for the outcome.
func serverProfile(ctx context.Context, cfg *rest.Config, d time.Duration, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		rc, err := rest.NewClient(cfg)
		if err != nil {
			done <- err
			return
		}
		secs := int(d / time.Second)
		b, err := rc.Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(secs)).
			Timeout(d + 30*time.Second).DoRaw(ctx)
		if err != nil {
			done <- fmt.Errorf("kube-apiserver profile: %w", err)
			return
		}
		done <- os.WriteFile(path, b, 0o644)
	}()
	return done
}

// startProfile starts a CPU profile of this process (the client side)
// written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
