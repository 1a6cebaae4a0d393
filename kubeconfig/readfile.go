package kubeconfig

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// maxReferencedFile bounds a certificate, key or CA file named in a
// kubeconfig.
const maxReferencedFile = 1 << 20

// ErrNotRegularFile: a file named in a kubeconfig (certificate, key, CA) is
// not a regular file, such as a device or a pipe, which could block or never
// end.
var ErrNotRegularFile = errors.New("not a regular file")

// readFile reads a regular file of at most maxReferencedFile bytes.
func readFile(path string) ([]byte, error) {
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
	b, err := io.ReadAll(io.LimitReader(f, maxReferencedFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxReferencedFile {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	return b, nil
}
