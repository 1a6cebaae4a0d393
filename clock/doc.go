// Package clock is kubego's one source of time. Every package that waits
// or dates something takes a [Clock] in its Options (field Clock); nil
// means [Real], the wall clock.
//
// Tests either run inside testing/synctest, where the wall clock is already
// fake and [Real] needs no replacement, or inject their own Clock.
//
// The interface is the smallest that every user can build on: Now, and
// AfterFunc returning a [Timer] that can be stopped and re-armed.
// [Sleep] and [NewTimer] derive a context-aware wait and a timer channel
// from it, so an injected Clock drives those too.
package clock
