package auth

import "github.com/kubego/kubego/internal/boundedread"

// ErrNotRegularFile: a certificate or key file is not a regular file
// (a device or a pipe could block or never end).
var ErrNotRegularFile = boundedread.ErrNotRegular

// readFile reads a regular file of at most max bytes. Errors name the path,
// never the content.
func readFile(path string, max int64) ([]byte, error) {
	return boundedread.File(path, max, ErrTooLarge)
}
