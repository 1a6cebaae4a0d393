package certs

import (
	"fmt"
	"os"
	"path/filepath"
)

// The file names Write uses, those of a kubernetes.io/tls Secret mounted as
// a volume.
const (
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"
)

// Files names where Write put a key pair.
type Files struct {
	CertFile string
	KeyFile  string
}

// Write stores pair as dir/tls.crt and dir/tls.key (the key readable by the
// owner only), creating dir if needed. Each file is replaced atomically
// (written beside and renamed), so a reader sees the old or the new file,
// never a partial one. The key is written first; a server that reloads in
// between finds a mismatched pair and keeps its previous certificate until
// the certificate file follows.
func Write(dir string, pair KeyPair) (Files, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Files{}, fmt.Errorf("certs: %w", err)
	}
	f := Files{CertFile: filepath.Join(dir, CertFileName), KeyFile: filepath.Join(dir, KeyFileName)}
	if err := writeAtomic(f.KeyFile, pair.KeyPEM, 0o600); err != nil {
		return Files{}, err
	}
	if err := writeAtomic(f.CertFile, pair.CertPEM, 0o644); err != nil {
		return Files{}, err
	}
	return f, nil
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, mode)
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("certs: writing %s: %w", path, werr)
	}
	return nil
}
