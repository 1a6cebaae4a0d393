package clocktest

import (
	"slices"
	"testing"
	"time"
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestAdvanceRunsDueTimersInTimeOrderAtTheirTime(t *testing.T) {
	c := New(start)
	var got []string
	at := func(name string) func() {
		return func() { got = append(got, name+"@"+c.Now().Sub(start).String()) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	c.AfterFunc(10*time.Second, at("late"))
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(2*time.Second, func() {
		at("b")()
		c.AfterFunc(500*time.Millisecond, at("armed by b")) // due within the same Advance
	})
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	c.Advance(5 * time.Second)
	want := []string{"a@1s", "b@2s", "armed by b@2.5s", "c@3s"}
	if !slices.Equal(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if now := c.Now(); !now.Equal(start.Add(5 * time.Second)) {
		t.Errorf("Now after Advance = %v", now)
	}
	if c.Created() != 6 || c.Pending() != 1 {
		t.Errorf("Created %d, Pending %d; want 6 and 1 (late)", c.Created(), c.Pending())
	}
}

func TestResetRearmsAFiredTimer(t *testing.T) {
	c := New(start)
	n := 0
	tm := c.AfterFunc(time.Second, func() { n++ })
	c.Advance(time.Second)
	if tm.Reset(time.Second) {
		t.Error("Reset of a fired timer reported it pending")
	}
	c.Advance(time.Second)
	if n != 2 {
		t.Errorf("ran %d times, want 2", n)
	}
	if tm.Stop() {
		t.Error("Stop after firing reported true")
	}
}
