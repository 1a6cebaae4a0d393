package wire

import (
	"bytes"
	"strings"
)

// PeekTypeMeta returns the apiVersion and kind of a JSON object the way
// encoding/json would read them into a struct of those two string fields
// (the last occurrence wins; an absent or null key leaves ""). It walks only
// the top-level keys, skipping values without parsing them, and gives up
// (ok == false) on anything it cannot read exactly like encoding/json: a
// body that is not an object, a top-level key with an escape or a
// non-ASCII byte, a key equal to apiVersion or kind except for case, an
// apiVersion or kind that is not a plain ASCII string or null. It does not
// validate the skipped values: the decode that follows does.
func PeekTypeMeta(b []byte) (apiVersion, kind string, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", "", false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return "", "", true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return "", "", false
		}
		key, next, plain := readString(b, i)
		if !plain {
			return "", "", false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return "", "", false
		}
		i = skipSpace(b, i+1)
		var target *string
		switch {
		case string(key) == "apiVersion":
			target = &apiVersion
		case string(key) == "kind":
			target = &kind
		case strings.EqualFold(string(key), "apiVersion"), strings.EqualFold(string(key), "kind"):
			return "", "", false
		}
		if target != nil {
			switch {
			case i < len(b) && b[i] == '"':
				v, next, plain := readString(b, i)
				if !plain {
					return "", "", false
				}
				*target, i = string(v), next
			case bytes.HasPrefix(b[i:], []byte("null")):
				i += len("null")
			default:
				return "", "", false
			}
		} else {
			var good bool
			if i, good = skipValue(b, i); !good {
				return "", "", false
			}
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return "", "", false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return apiVersion, kind, true
		default:
			return "", "", false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// readString reads the string starting at the quote b[i]. It returns its
// raw content, the index after the closing quote, and whether the content
// is plain: closed, with no escape and only printable ASCII.
func readString(b []byte, i int) (s []byte, next int, plain bool) {
	j := i + 1
	for k := j; k < len(b); k++ {
		switch c := b[k]; {
		case c == '"':
			return b[j:k], k + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipString returns the index after the string starting at the quote
// b[i], or -1 when it is not closed.
func skipString(b []byte, i int) int {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// skipValue returns the index after the value starting at b[i]: a string,
// an object or array (by bracket depth, strings skipped whole), or a
// literal or number (up to the next delimiter).
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		n := skipString(b, i)
		return n, n >= 0
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				n := skipString(b, i)
				if n < 0 {
					return 0, false
				}
				i = n
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	default:
		start := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, i > start
			}
			i++
		}
		return 0, false
	}
}

// findMember finds the first member named name of the JSON object starting
// at b[i]. It returns the end of the member before it (hasPrev false when
// it is the first), the index of its key's opening quote, and its value's
// span. Keys with escapes never match; values are skipped unparsed.
func findMember(b []byte, i int, name string) (prevEnd, keyStart, valStart, valEnd int, hasPrev, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = skipSpace(b, i+1)
	prevEnd = -1
	for i < len(b) && b[i] == '"' {
		keyStart = i
		key, next, plain := readString(b, i)
		if !plain {
			if next = skipString(b, i); next < 0 {
				return
			}
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return
		}
		valStart = skipSpace(b, i+1)
		var good bool
		if valEnd, good = skipValue(b, valStart); !good {
			return
		}
		if plain && string(key) == name {
			return prevEnd, keyStart, valStart, valEnd, prevEnd >= 0, true
		}
		prevEnd = valEnd
		i = skipSpace(b, valEnd)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
	return
}
