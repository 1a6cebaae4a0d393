package rest

import "reflect"

// newOf returns a new *T for the struct type t.
func newOf(t reflect.Type) any { return reflect.New(t).Interface() }
