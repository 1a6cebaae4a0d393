//go:build linux

package faults_test

import (
	"syscall"
	"unsafe"
)

// monotonicNow reads CLOCK_MONOTONIC in nanoseconds. Unlike the monotonic
// reading inside a time.Time, it is one clock for every process of the
// machine, so the reconcile logs of several processes compare.
func monotonicNow() int64 {
	var ts syscall.Timespec
	const clockMonotonic = 1
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic("clock_gettime(CLOCK_MONOTONIC): " + errno.Error())
	}
	return ts.Nano()
}
