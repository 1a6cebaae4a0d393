package admission_test

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/kubego/kubego/webhook/admission"
)

func TestCreatePatch(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"equal documents", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, `[]`},
		{"added, removed and replaced keys in sorted order", `{"a":1,"b":2}`, `{"b":3,"c":null}`,
			`[{"op":"remove","path":"/a"},{"op":"replace","path":"/b","value":3},{"op":"add","path":"/c","value":null}]`},
		{"arrays of equal length element by element", `{"l":[{"x":1},{"x":2}]}`, `{"l":[{"x":1},{"x":3}]}`,
			`[{"op":"replace","path":"/l/1/x","value":3}]`},
		{"arrays of other length whole", `{"l":[1]}`, `{"l":[1,2]}`, `[{"op":"replace","path":"/l","value":[1,2]}]`},
		{"keys escaped as JSON pointers", `{}`, `{"a/b~c":1}`, `[{"op":"add","path":"/a~1b~0c","value":1}]`},
		{"a changed type is replaced", `{"a":{"b":1}}`, `{"a":[1]}`, `[{"op":"replace","path":"/a","value":[1]}]`},
		{"the root replaced", `[1]`, `{"a":1}`, `[{"op":"replace","path":"","value":{"a":1}}]`},
		{"numbers compared by text", `{"a":1.0}`, `{"a":1}`, `[{"op":"replace","path":"/a","value":1}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := admission.CreatePatch([]byte(tc.from), []byte(tc.to))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(ops)
			if string(got) != tc.want {
				t.Fatalf("patch %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCreatePatchRefusesMalformedJSON(t *testing.T) {
	if _, err := admission.CreatePatch([]byte(`{`), []byte(`{}`)); err == nil {
		t.Fatal("no error for malformed input")
	}
}

// Applying the patch CreatePatch makes to from, with the library
// kube-apiserver applies patches with, yields to.
func FuzzCreatePatchRoundTrips(f *testing.F) {
	f.Add(`{"a":1,"b":{"c":[1,2,{"d":null}]}}`, `{"b":{"c":[1,3,{"d":"x"}],"e":true}}`)
	f.Add(`{"metadata":{"name":"w"}}`, `{"metadata":{"name":"w","labels":{"a/b":"~"}}}`)
	f.Add(`[]`, `{}`)
	f.Add(`{"x":[]}`, `{"x":[[]]}`)
	f.Fuzz(func(t *testing.T, from, to string) {
		if !json.Valid([]byte(from)) || !json.Valid([]byte(to)) {
			return
		}
		ops, err := admission.CreatePatch([]byte(from), []byte(to))
		if err != nil {
			return // trailing data after a value, for example
		}
		data, err := json.Marshal(ops)
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) == 0 {
			if !jsonEqualValues(t, from, to) {
				t.Fatalf("no operations from %s to %s", from, to)
			}
			return
		}
		p, err := jsonpatch.DecodePatch(data)
		if err != nil {
			t.Fatalf("patch %s: %v", data, err)
		}
		if ops[0].Path == "" {
			return // a root replace, which the applier does not support
		}
		got, err := p.Apply([]byte(from))
		if err != nil {
			t.Fatalf("applying %s to %s: %v", data, from, err)
		}
		if !jsonEqualValues(t, string(got), to) {
			t.Fatalf("patch %s turned %s into %s, want %s", data, from, got, to)
		}
	})
}

func jsonEqualValues(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	bx, _ := json.Marshal(y)
	return string(ax) == string(bx)
}
