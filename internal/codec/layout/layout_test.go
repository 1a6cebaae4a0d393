package layout

import (
	"reflect"
	"testing"
	"unsafe"
)

func TestSliceMatchesTheRuntime(t *testing.T) {
	tests := []struct {
		name string
		s    any // a pointer to a slice
	}{
		{"bytes", &[]byte{1, 2, 3}},
		{"strings with spare capacity", func() *[]string { s := make([]string, 2, 5); return &s }()},
		{"structs", &[]struct{ a, b int }{{1, 2}}},
		{"nil", new([]int)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := reflect.ValueOf(tt.s)
			h := (*Slice)(v.UnsafePointer())
			sv := v.Elem()
			var data unsafe.Pointer
			if !sv.IsNil() {
				data = sv.UnsafePointer()
			}
			if h.Data != data || h.Len != sv.Len() || h.Cap != sv.Cap() {
				t.Fatalf("read %+v, want data %p len %d cap %d", *h, data, sv.Len(), sv.Cap())
			}
		})
	}
}

func TestSameMap(t *testing.T) {
	a, b := map[string]int{"x": 1}, map[string]int{"x": 1}
	c := a
	tests := []struct {
		name string
		x, y map[string]int
		want bool
	}{
		{"one map", a, c, true},
		{"equal maps are different maps", a, b, false},
		{"two nil maps", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameMap(tt.x, tt.y); got != tt.want {
				t.Fatalf("SameMap = %v, want %v", got, tt.want)
			}
		})
	}
}
