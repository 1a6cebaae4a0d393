package objects_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/kubego/kubego/objects"
)

func TestMergePatch(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"equal objects give an empty patch", `{"a":1,"b":{"c":[1,2]}}`, `{"a":1,"b":{"c":[1,2]}}`, `{}`},
		{"a changed field is sent", `{"a":1,"b":2}`, `{"a":3,"b":2}`, `{"a":3}`},
		{"a removed field is null", `{"a":1,"b":2}`, `{"a":1}`, `{"b":null}`},
		{"an added field is sent", `{"a":1}`, `{"a":1,"b":{"c":2}}`, `{"b":{"c":2}}`},
		{"objects are compared field by field", `{"m":{"x":1,"y":2}}`, `{"m":{"x":1,"y":3}}`, `{"m":{"y":3}}`},
		{"a changed array is sent whole", `{"l":[1,2,3]}`, `{"l":[1,3]}`, `{"l":[1,3]}`},
		{"an object replacing a scalar is sent whole", `{"a":1}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o, n map[string]any
			if err := json.Unmarshal([]byte(tt.old), &o); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.new), &n); err != nil {
				t.Fatal(err)
			}
			got, err := objects.MergePatch(o, n)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("MergePatch = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMergePatchRefusesNonObjects(t *testing.T) {
	if _, err := objects.MergePatch([]int{1}, map[string]any{}); err == nil {
		t.Fatal("MergePatch of an array: no error")
	}
	if _, err := objects.MergePatch(map[string]any{}, func() {}); err == nil {
		t.Fatal("MergePatch of a func: no error")
	}
}

func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// Applying the patch to old gives new, for any two JSON objects without
// nulls (a null in new reads as "absent" once merged, as in RFC 7386).
func FuzzMergePatch(f *testing.F) {
	f.Add(`{"a":1,"b":{"c":[1,2]}}`, `{"a":2,"b":{"d":"x"}}`)
	f.Add(`{"metadata":{"labels":{"a":"b"}},"spec":{"replicas":3}}`, `{"metadata":{"labels":{}},"spec":{"replicas":3,"paused":true}}`)
	f.Add(`{}`, `{"x":{"y":{"z":[{"a":1}]}}}`)
	f.Fuzz(func(t *testing.T, oldDoc, newDoc string) {
		var o, n map[string]any
		if json.Unmarshal([]byte(oldDoc), &o) != nil || json.Unmarshal([]byte(newDoc), &n) != nil || o == nil || n == nil {
			return
		}
		if strings.Contains(newDoc, "null") {
			return
		}
		patch, err := objects.MergePatch(o, n)
		if err != nil {
			t.Fatal(err)
		}
		oldJSON, _ := json.Marshal(o)
		got, err := jsonpatch.MergePatch(oldJSON, patch)
		if err != nil {
			t.Fatalf("applying %s to %s: %v", patch, oldJSON, err)
		}
		newJSON, _ := json.Marshal(n)
		if !jsonEqual(t, got, newJSON) {
			t.Fatalf("old %s + patch %s = %s, want %s", oldJSON, patch, got, newJSON)
		}
	})
}
