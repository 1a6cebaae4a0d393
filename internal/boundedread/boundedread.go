// Package boundedread reads small files that a user names (tokens,
// certificates, keys, CAs) without trusting them: only regular files, and
// only up to a size limit.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular: the path is not a regular file (a device or a pipe could
// block or never end).
var ErrNotRegular = errors.New("not a regular file")

// File reads the regular file at path if it holds at most max bytes. A
// larger file gives an error wrapping tooLarge (the caller's sentinel); a
// non-regular one wraps ErrNotRegular. Errors name the path, never the
// content.
func File(path string, max int64, tooLarge error) ([]byte, error) {
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
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w", path, tooLarge)
	}
	return b, nil
}
