package auth

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/kubego/kubego/internal/defaultlog"
)

// maxPEMBytes bounds a certificate or key file.
const maxPEMBytes = 1 << 20

// CertFilesOptions configures NewCertFiles.
type CertFilesOptions struct {
	// CertFile and KeyFile are the PEM client certificate and private key
	// (both required).
	CertFile string
	KeyFile  string
	// Logger receives a warning when a changed pair fails to load (the
	// previous pair is kept). Nil means slog.Default(), at warn level.
	Logger *slog.Logger
}

// CertFiles supplies a client certificate read from a certificate and a key
// file, reloading them when either file's size or modification time
// changes. It is a rest.ClientCertificateSource, for
// rest.TLSConfig.ClientCertificates. It is safe for concurrent use.
//
// A reload happens at the next TLS handshake after the change; connections
// already open keep the certificate they were made with. While the two
// files are being replaced one after the other, a pair that does not match
// is not used: the previous pair is kept until both files agree.
type CertFiles struct {
	opts CertFilesOptions

	mu       sync.Mutex
	cert     *tls.Certificate
	certStat fileStamp
	keyStat  fileStamp
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func stamp(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime()}, nil
}

// NewCertFiles loads the pair once, so that a missing file or a mismatched
// pair is reported now. Errors name the files, never key material.
func NewCertFiles(opts CertFilesOptions) (*CertFiles, error) {
	opts.Logger = defaultlog.Or(opts.Logger)
	c := &CertFiles{opts: opts}
	if err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// load reads both files; callers hold c.mu (or own c exclusively).
func (c *CertFiles) load() error {
	cs, err := stamp(c.opts.CertFile)
	if err != nil {
		return fmt.Errorf("client certificate: %w", err)
	}
	ks, err := stamp(c.opts.KeyFile)
	if err != nil {
		return fmt.Errorf("client key: %w", err)
	}
	certPEM, err := readFile(c.opts.CertFile, maxPEMBytes)
	if err != nil {
		return fmt.Errorf("client certificate: %w", err)
	}
	keyPEM, err := readFile(c.opts.KeyFile, maxPEMBytes)
	if err != nil {
		return fmt.Errorf("client key: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// The tls error text describes structure only, never key bytes.
		return fmt.Errorf("client certificate %s and key %s: %w: %v", c.opts.CertFile, c.opts.KeyFile, ErrInvalidCertificate, err)
	}
	c.cert, c.certStat, c.keyStat = &pair, cs, ks
	return nil
}

// GetClientCertificate returns the current pair, reloading it first if
// either file changed. It never fails once a pair has been loaded.
func (c *CertFiles) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, err1 := stamp(c.opts.CertFile)
	ks, err2 := stamp(c.opts.KeyFile)
	if err1 == nil && err2 == nil && (cs != c.certStat || ks != c.keyStat) {
		if err := c.load(); err != nil {
			c.opts.Logger.Warn("reloading client certificate failed; keeping the previous one", "cert", c.opts.CertFile, "key", c.opts.KeyFile, "err", err)
		}
	}
	return c.cert, nil
}
