package wire

import (
	stdjson "encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCutManagedFieldsJSON(t *testing.T) {
	const mf = `[{"manager":"kubectl","fieldsV1":{"f:data":{".":{},"f:x\"}":{}}}}]`
	tests := []struct {
		name, in, want string
	}{
		{"only member", `{"metadata":{"managedFields":` + mf + `}}`, `{"metadata":{}}`},
		{"first member", `{"metadata":{"managedFields":` + mf + `,"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{"middle member", `{"metadata":{"name":"a", "managedFields": ` + mf + ` , "uid":"u"},"data":{}}`, `{"metadata":{"name":"a", "uid":"u"},"data":{}}`},
		{"last member", `{"kind":"ConfigMap","metadata":{"name":"a","managedFields":` + mf + ` }}`, `{"kind":"ConfigMap","metadata":{"name":"a" }}`},
		{"pretty-printed", "{\n  \"metadata\": {\n    \"managedFields\": [],\n    \"name\": \"a\"\n  }\n}", "{\n  \"metadata\": {\n    \"name\": \"a\"\n  }\n}"},
		{"no managedFields", `{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{"no metadata", `{"spec":{"managedFields":[]}}`, `{"spec":{"managedFields":[]}}`},
		{"managedFields outside metadata stay", `{"managedFields":[],"spec":{"metadata":{"managedFields":[]}}}`, `{"managedFields":[],"spec":{"metadata":{"managedFields":[]}}}`},
		{"metadata that is not an object", `{"metadata":[{"managedFields":[]}]}`, `{"metadata":[{"managedFields":[]}]}`},
		{"an escaped key is left alone", `{"metadata":{"managed\u0046ields":[]}}`, `{"metadata":{"managed\u0046ields":[]}}`},
		{"a malformed value is left for the decoder", `{"metadata":{"managedFields":[tru],"name":"a"}}`, `{"metadata":{"managedFields":[tru],"name":"a"}}`},
		{"a trailing comma is left for the decoder", `{"metadata":{"managedFields":[],}}`, `{"metadata":{"managedFields":[],}}`},
		{"not an object", `[1,2]`, `[1,2]`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(CutManagedFieldsJSON([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// withoutManagedFields decodes b and deletes metadata.managedFields.
func withoutManagedFields(b []byte) (any, error) {
	var v any
	if err := stdjson.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
	}
	return v, nil
}

// FuzzCutManagedFieldsJSON: cutting never turns invalid JSON valid, and on
// valid JSON changes nothing but metadata.managedFields.
func FuzzCutManagedFieldsJSON(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},"data":{"k":"v"}}`,
		`{"metadata":{"managedFields":[],"name":"a"}}`,
		`{"metadata":{"managedFields":null}, "metadata":{"name":"b"}}`,
		`{"metadata":{"managedFields":"x\"y"}}`,
		`{"metadata":{"managedFields":[],}}`,
		`{ "metadata" : { "managedFields" : 1 } }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := append([]byte(nil), in...)
		out := CutManagedFieldsJSON(in)
		if !stdjson.Valid(orig) {
			if stdjson.Valid(out) {
				t.Fatalf("invalid %q became valid %q", orig, out)
			}
			return
		}
		want, err := withoutManagedFields(orig)
		if err != nil {
			return // valid but not decodable into any (cannot happen)
		}
		got, err := withoutManagedFields(out)
		if err != nil {
			t.Fatalf("%q cut to %q: %v", orig, out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q cut to %q: decodes differently", orig, out)
		}
		if !strings.Contains(string(orig), "managedFields") && string(out) != string(orig) {
			t.Fatalf("%q changed to %q", orig, out)
		}
	})
}
