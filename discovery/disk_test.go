package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzCacheFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"snapshot":{"groups":[{"name":"","versions":[{"version":"v1","resources":[{"name":"pods","kind":{"Group":"","Version":"v1","Kind":"Pod"},"namespaced":true}]}]}],"fetched":"2026-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &diskCache{path: filepath.Join(t.TempDir(), "discovery.json")}
		if err := os.WriteFile(d.path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := d.read()
		if err == nil && s == nil {
			t.Fatal("nil snapshot without error")
		}
		if err == nil {
			buildIndex(s) // must not panic on whatever the file held
		}
	})
}
