package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errBig = errors.New("too large")

func TestFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("secret-token"), 0o600)
	tests := []struct {
		name    string
		path    string
		max     int64
		want    string
		wantErr error
	}{
		{"a file within the limit is read", small, 64, "secret-token", nil},
		{"a file at the limit is read", small, 12, "secret-token", nil},
		{"a file over the limit is refused", small, 11, "", errBig},
		{"a directory is refused", dir, 64, "", ErrNotRegular},
		{"a device is refused", "/dev/zero", 64, "", ErrNotRegular},
		{"a missing file is an os error", filepath.Join(dir, "nope"), 64, "", os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := File(tt.path, tt.max, errBig)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if string(b) != tt.want {
				t.Fatalf("got %q, want %q", b, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret-token") {
				t.Fatalf("error leaks content: %v", err)
			}
		})
	}
}
