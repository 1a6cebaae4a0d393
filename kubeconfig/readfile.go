package kubeconfig

import "github.com/kubego/kubego/internal/boundedread"

// maxReferencedFile bounds a certificate, key or CA file named in a
// kubeconfig.
const maxReferencedFile = 1 << 20

// ErrNotRegularFile: a file named in a kubeconfig (certificate, key, CA) is
// not a regular file, such as a device or a pipe, which could block or never
// end.
var ErrNotRegularFile = boundedread.ErrNotRegular

// readFile reads a regular file of at most maxReferencedFile bytes.
func readFile(path string) ([]byte, error) {
	return boundedread.File(path, maxReferencedFile, ErrTooLarge)
}
