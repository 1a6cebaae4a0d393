package wire

import "unsafe"

// Labels reads metadata.labels of an object's protobuf bytes in place
// (metadata is field 1 of every Kubernetes object, labels field 11 of
// ObjectMeta, each label a map entry of key 1 and value 2). It implements
// k8s.io/apimachinery's labels.Labels, so a label selector can be matched
// against an encoded object without decoding it.
//
// The strings it returns alias the bytes: the bytes must never change
// while any of them is in use. Malformed bytes read as no labels.
type Labels []byte

// Has reports whether the label exists.
func (l Labels) Has(label string) bool {
	_, ok := l.Lookup(label)
	return ok
}

// Get returns the label's value, "" if absent.
func (l Labels) Get(label string) string {
	v, _ := l.Lookup(label)
	return v
}

// Lookup returns the label's value and whether it exists.
func (l Labels) Lookup(label string) (string, bool) {
	var value []byte
	found := false
	l.walk(func(k, v []byte) bool {
		if string(k) == label {
			value, found = v, true
			return false
		}
		return true
	})
	if !found {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(value), len(value)), true
}

// Each calls f for every label, in encoded order, with strings aliasing
// the bytes (see [Labels]); it stops at malformed bytes.
func (l Labels) Each(f func(key, value string)) {
	l.walk(func(k, v []byte) bool {
		f(unsafe.String(unsafe.SliceData(k), len(k)), unsafe.String(unsafe.SliceData(v), len(v)))
		return true
	})
}

// walk calls yield with each label's key and value, in encoded order,
// until yield returns false or the bytes turn out malformed.
func (l Labels) walk(yield func(key, value []byte) bool) {
	meta, ok := firstBytesField(l, 1)
	if !ok {
		return
	}
	for len(meta) > 0 {
		num, wt, val, rest, err := Field(meta)
		if err != nil {
			return
		}
		meta = rest
		if num != 11 || wt != Bytes {
			continue
		}
		var key, value []byte
		if BytesFields(val, func(n int, v []byte) {
			switch n {
			case 1:
				key = v
			case 2:
				value = v
			}
		}) != nil {
			return
		}
		if !yield(key, value) {
			return
		}
	}
}

// firstBytesField returns the content of the first length-delimited field
// num of message b.
func firstBytesField(b []byte, num int) ([]byte, bool) {
	for len(b) > 0 {
		n, wt, val, rest, err := Field(b)
		if err != nil {
			return nil, false
		}
		if n == num && wt == Bytes {
			return val, true
		}
		b = rest
	}
	return nil, false
}
