package podlogs

import "testing"

func TestTail(t *testing.T) {
	for _, c := range []struct {
		name, in string
		n        int64
		want     string
	}{
		{"all with a negative count", "a\nb\n", -1, "a\nb\n"},
		{"none with zero", "a\nb\n", 0, ""},
		{"last line", "a\nb\nc\n", 1, "c\n"},
		{"last two lines", "a\nb\nc\n", 2, "b\nc\n"},
		{"more lines than there are", "a\nb\n", 5, "a\nb\n"},
		{"unterminated last line", "a\nb", 1, "b"},
		{"empty", "", 3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(Tail([]byte(c.in), c.n)); got != c.want {
				t.Errorf("Tail(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
			}
		})
	}
}
