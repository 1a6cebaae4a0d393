package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// PatchOperation is one RFC 6902 operation. Value is the JSON value of
// "add" and "replace" (the literal null included) and empty for "remove".
type PatchOperation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// CreatePatch returns the operations that turn the JSON document from
// into to: objects are compared key by key, arrays of equal length element
// by element, and anything else that differs is replaced whole. The
// operations are in a stable order (keys sorted). Numbers are compared by
// their text, so 1 and 1.0 differ.
func CreatePatch(from, to []byte) ([]PatchOperation, error) {
	a, err := decodeJSON(from)
	if err != nil {
		return nil, err
	}
	b, err := decodeJSON(to)
	if err != nil {
		return nil, err
	}
	var d differ
	d.diff(a, b, nil)
	return d.ops()
}

// defaultingPatch returns the patch that applies to the raw object what the
// defaulter changed: the differences between raw and after, keeping only
// those at paths where before (the decoded object, re-encoded, before the
// defaulter ran) and after differ. So a field the Go type drops or adds on
// its own (an unknown field, a zero value without omitempty) is not
// touched.
func defaultingPatch(raw, before, after []byte) ([]PatchOperation, error) {
	r, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	b, err := decodeJSON(before)
	if err != nil {
		return nil, err
	}
	a, err := decodeJSON(after)
	if err != nil {
		return nil, err
	}
	var d differ
	d.diff(r, a, nil)
	kept := d.changes[:0]
	for _, c := range d.changes {
		bv, bok := lookup(b, c.path)
		av, aok := lookup(a, c.path)
		if bok != aok || !reflect.DeepEqual(bv, av) {
			kept = append(kept, c)
		}
	}
	d.changes = kept
	return d.ops()
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("json patch: %w", err)
	}
	return v, nil
}

// change is one operation before encoding; path holds the unescaped
// segments (an array index as its decimal text).
type change struct {
	op    string
	path  []string
	value any
}

type differ struct{ changes []change }

func (d *differ) diff(a, b any, path []string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(av)) {
			p := append(slices.Clip(path), k)
			if bx, ok := bv[k]; ok {
				d.diff(av[k], bx, p)
			} else {
				d.changes = append(d.changes, change{op: "remove", path: p})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(bv)) {
			if _, ok := av[k]; !ok {
				d.changes = append(d.changes, change{op: "add", path: append(slices.Clip(path), k), value: bv[k]})
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			d.diff(av[i], bv[i], append(slices.Clip(path), strconv.Itoa(i)))
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		d.changes = append(d.changes, change{op: "replace", path: path, value: b})
	}
}

func (d *differ) ops() ([]PatchOperation, error) {
	out := make([]PatchOperation, 0, len(d.changes))
	for _, c := range d.changes {
		op := PatchOperation{Op: c.op, Path: pointer(c.path)}
		if c.op != "remove" {
			v, err := json.Marshal(c.value)
			if err != nil {
				return nil, fmt.Errorf("json patch: %w", err)
			}
			op.Value = v
		}
		out = append(out, op)
	}
	return out, nil
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer renders segments as an RFC 6901 JSON pointer.
func pointer(segments []string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(s))
	}
	return b.String()
}

// lookup follows path through objects and arrays.
func lookup(v any, path []string) (any, bool) {
	for _, s := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[s]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
