package main

import "testing"

// Both implementations process every key of a small scenario, with either
// key type, and the result is filled in.
func TestScenarioProcessesEveryKey(t *testing.T) {
	for _, impl := range []string{"kubego", "client-go"} {
		t.Run(impl+"/string", func(t *testing.T) {
			q, ok := newQueue[string](impl)
			if !ok {
				t.Fatal("unknown impl")
			}
			r := run(q, makeKeys(5000), 4, 8)
			if r.Keys != 5000 || r.AddsPerSec <= 0 || r.Seconds <= 0 {
				t.Fatalf("result %+v", r)
			}
		})
		t.Run(impl+"/struct", func(t *testing.T) {
			q, _ := newQueue[objectKey](impl)
			r := run(q, makeStructKeys(5000), 3, 5)
			if r.Keys != 5000 || r.Producers != 3 || r.Workers != 5 {
				t.Fatalf("result %+v", r)
			}
		})
	}
}
