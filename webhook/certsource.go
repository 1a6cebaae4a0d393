package webhook

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubego/kubego/internal/boundedread"
)

// maxCertFileBytes bounds the certificate and key files read.
const maxCertFileBytes = 1 << 20

// ErrCertificateFileTooLarge is wrapped by the error of a certificate or
// key file over 1 MiB.
var ErrCertificateFileTooLarge = errors.New("webhook: certificate or key file over 1 MiB")

// certSource serves the key pair in two files and reloads it when either
// file changes. It reads both files (a few KiB) at each TLS handshake and
// parses them only when their bytes changed, so a new connection always
// gets the newest valid pair, whatever the file system's timestamps, and
// an idle server does no work. A pair that fails to load (missing file,
// half-written rotation, key not matching the certificate) leaves the
// previous one in service; the next handshake tries again.
type certSource struct {
	certFile, keyFile string
	log               *slog.Logger

	mu         sync.Mutex
	cert       *tls.Certificate
	certPEM    []byte
	keyPEM     []byte
	failLogged bool
}

// errNoCertificate is returned when no key pair could ever be loaded.
var errNoCertificate = errors.New("webhook: no serving certificate loaded")

func newCertSource(certFile, keyFile string, log *slog.Logger) (*certSource, error) {
	s := &certSource{certFile: certFile, keyFile: keyFile, log: log}
	if _, err := s.current(); err != nil {
		return nil, err
	}
	return s, nil
}

// current returns the pair to serve, reloading it first when a file changed.
func (s *certSource) current() (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	certPEM, cerr := boundedread.File(s.certFile, maxCertFileBytes, ErrCertificateFileTooLarge)
	keyPEM, kerr := boundedread.File(s.keyFile, maxCertFileBytes, ErrCertificateFileTooLarge)
	if err := errors.Join(cerr, kerr); err != nil {
		return s.keep(fmt.Errorf("webhook: reading the serving certificate: %w", err))
	}
	if s.cert != nil && bytes.Equal(certPEM, s.certPEM) && bytes.Equal(keyPEM, s.keyPEM) {
		return s.cert, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return s.keep(fmt.Errorf("webhook: loading %s and %s: %w", s.certFile, s.keyFile, err))
	}
	if pair.Leaf == nil {
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return s.keep(fmt.Errorf("webhook: parsing %s: %w", s.certFile, err))
		}
	}
	reloaded := s.cert != nil
	s.cert, s.certPEM, s.keyPEM = &pair, certPEM, keyPEM
	s.failLogged = false
	if reloaded {
		s.log.Info("webhook: serving certificate reloaded", "file", s.certFile, "serial", pair.Leaf.SerialNumber.String(), "notAfter", pair.Leaf.NotAfter)
	}
	return s.cert, nil
}

// keep records a failed load and returns the pair in service, if any. The
// failure is logged once until a load succeeds again.
func (s *certSource) keep(err error) (*tls.Certificate, error) {
	if s.cert == nil {
		return nil, errors.Join(errNoCertificate, err)
	}
	if !s.failLogged {
		s.failLogged = true
		s.log.Warn("webhook: keeping the previous serving certificate", "err", err)
	}
	return s.cert, nil
}

// getCertificate is tls.Config.GetCertificate.
func (s *certSource) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.current()
}

// check reports an error when no valid certificate is in service or the
// one in service has expired.
func (s *certSource) check(now time.Time) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	if now.After(c.Leaf.NotAfter) {
		return fmt.Errorf("webhook: serving certificate expired at %s", c.Leaf.NotAfter)
	}
	return nil
}
