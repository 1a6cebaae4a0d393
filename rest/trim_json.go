package rest

import (
	stdjson "encoding/json"
)

// cutManagedFieldsJSON removes the member "managedFields" from the
// top-level "metadata" object of the JSON object b, in place, and returns
// the shortened slice: the JSON twin of trimmer.envelope, for a caller
// that drops managedFields anyway (an informer), so that they cost no
// decoding. The removed value must be valid JSON, so a malformed object is
// still reported by the decode that follows. Anything it cannot read
// plainly (a top-level value that is not an object, keys with escapes) is
// left as is: cutting is an optimisation, and the caller still drops
// managedFields after decoding.
func cutManagedFieldsJSON(b []byte) []byte {
	_, _, mdStart, mdEnd, _, ok := findMember(b, skipSpace(b, 0), "metadata")
	if !ok || b[mdStart] != '{' {
		return b
	}
	prevEnd, keyStart, valStart, valEnd, hasPrev, ok := findMember(b[:mdEnd], mdStart, "managedFields")
	if !ok || !stdjson.Valid(b[valStart:valEnd]) {
		return b
	}
	// Remove the member with one of its commas: the one after it, or,
	// for the last member, the one before it.
	from, to := keyStart, valEnd
	if j := skipSpace(b, valEnd); j < mdEnd && b[j] == ',' {
		if to = skipSpace(b, j+1); to >= mdEnd || b[to] != '"' {
			return b // a trailing comma: leave the error to the decoder
		}
	} else if hasPrev {
		from = prevEnd
	}
	return append(b[:from], b[to:]...)
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
