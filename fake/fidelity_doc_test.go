package fake_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFidelityCatalogueNamesTheExceptions keeps docs/fake-fidelity.md
// true: its lists of fake-side exceptions and real-side gaps name exactly
// the cases the conformance suite skips.
func TestFidelityCatalogueNamesTheExceptions(t *testing.T) {
	data, err := os.ReadFile("../docs/fake-fidelity.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	section := func(title string) []string {
		start := strings.Index(doc, "### "+title)
		if start < 0 {
			t.Fatalf("no section %q", title)
		}
		body := doc[start+len(title)+4:]
		if end := strings.Index(body, "\n#"); end >= 0 {
			body = body[:end]
		}
		var names []string
		name := regexp.MustCompile("`([A-Za-z]+)`")
		for _, line := range strings.Split(body, "\n") {
			// A bullet names its cases up to the colon before the reason;
			// its continuation lines may name more.
			line = strings.TrimSpace(line)
			if before, _, ok := strings.Cut(line, ":"); ok {
				line = before
			}
			for _, m := range name.FindAllStringSubmatch(line, -1) {
				names = append(names, m[1])
			}
		}
		slices.Sort(names)
		return names
	}
	keys := func(m map[string]string) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if got, want := section("Fake-side exceptions"), keys(fakeExceptions); !slices.Equal(got, want) {
		t.Errorf("docs/fake-fidelity.md names fake-side exceptions %v; the suite skips %v", got, want)
	}
	if got, want := section("Real-side gaps"), keys(realGaps); !slices.Equal(got, want) {
		t.Errorf("docs/fake-fidelity.md names real-side gaps %v; the suite skips %v", got, want)
	}
}
