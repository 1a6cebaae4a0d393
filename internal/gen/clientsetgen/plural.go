package main

import "strings"

// pluralExceptions are the kinds whose resource name does not follow the
// rule in pluralKind. The integration test in client compares every
// generated name with a real server's discovery, so a new exception shows
// up there.
var pluralExceptions = map[string]string{
	"Endpoints": "Endpoints",
}

// pluralKind returns the plural of a kind, in the kind's case: a trailing
// "s", "x", "z", "ch" or "sh" takes "es"; a consonant followed by "y" becomes
// "ies"; anything else takes "s".
func pluralKind(kind string) string {
	if p, ok := pluralExceptions[kind]; ok {
		return p
	}
	lower := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return kind + "es"
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return kind[:len(kind)-1] + "ies"
	}
	return kind + "s"
}
