package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestValuePrintsRedactedEveryWay(t *testing.T) {
	const tok = "tok-0123456789"
	v := New(tok)
	type holder struct {
		Exported   Value
		unexported Value
		list       []Value
	}
	h := holder{Exported: v, unexported: v, list: []Value{v, v}}
	var out strings.Builder
	for _, x := range []any{v, &v, h, &h, []Value{v}, map[string]Value{"k": v}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			fmt.Fprintf(&out, verb+"\n", x)
		}
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("m", "x", x)
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "x", x)
		j, _ := json.Marshal(x)
		out.Write(buf.Bytes())
		out.Write(j)
	}
	if strings.Contains(out.String(), tok) || strings.Contains(out.String(), fmt.Sprintf("%x", tok)) {
		t.Fatalf("the secret was printed:\n%s", out.String())
	}
	if v.Reveal() != tok || !v.Equal(New(tok)) || v.IsZero() || !New("").IsZero() || New("").Reveal() != "" {
		t.Fatal("Reveal, Equal or IsZero is wrong")
	}
}
