package auth

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegularFile: a token, certificate or key file is not a regular file
// (a device or a pipe could block or never end).
var ErrNotRegularFile = errors.New("not a regular file")

// readFile reads a regular file of at most max bytes. Errors name the path,
// never the content.
func readFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegularFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	return b, nil
}
