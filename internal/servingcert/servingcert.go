// Package servingcert serves a TLS key pair kept in two PEM files and
// reloads it when either file changes, for the HTTPS servers of kubego (the
// webhook server and the manager's secure metrics).
//
// A Source reads both files (a few KiB) at each TLS handshake and parses
// them only when their bytes changed, so a new connection always gets the
// newest valid pair whatever the file system's timestamps, and an idle
// server does no work. A pair that fails to load (missing file, half-written
// rotation, key not matching the certificate) leaves the previous one in
// service; the next handshake tries again.
package servingcert

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
	"github.com/kubego/kubego/internal/secret"
)

// MaxFileBytes bounds the certificate and key files read.
const MaxFileBytes = 1 << 20

// ErrFileTooLarge is wrapped by the error of a certificate or key file over
// MaxFileBytes.
var ErrFileTooLarge = errors.New("certificate or key file over 1 MiB")

// ErrNoCertificate is wrapped by the error of a Source that could never load
// a pair.
var ErrNoCertificate = errors.New("no serving certificate loaded")

// Source is a reloading key pair. Its methods are safe for concurrent use.
type Source struct {
	certFile, keyFile string
	prefix            string
	log               *slog.Logger

	mu         sync.Mutex
	cert       *tls.Certificate
	certPEM    []byte
	keyPEM     secret.Value
	failLogged bool
}

// New loads the pair once, so a missing or invalid pair is reported here
// rather than at the first handshake. prefix starts every error and log
// message ("webhook", "manager"); log receives reloads and failures and
// must not be nil.
func New(prefix, certFile, keyFile string, log *slog.Logger) (*Source, error) {
	s := &Source{certFile: certFile, keyFile: keyFile, prefix: prefix, log: log}
	if _, err := s.Current(); err != nil {
		return nil, err
	}
	return s, nil
}

// Current returns the pair to serve, reloading it first when a file
// changed. It fails only when no pair was ever loaded.
func (s *Source) Current() (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	certPEM, cerr := boundedread.File(s.certFile, MaxFileBytes, ErrFileTooLarge)
	keyPEM, kerr := boundedread.File(s.keyFile, MaxFileBytes, ErrFileTooLarge)
	if err := errors.Join(cerr, kerr); err != nil {
		return s.keep(fmt.Errorf("%s: reading the serving certificate: %w", s.prefix, err))
	}
	if s.cert != nil && bytes.Equal(certPEM, s.certPEM) && string(keyPEM) == s.keyPEM.Reveal() {
		return s.cert, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return s.keep(fmt.Errorf("%s: loading %s and %s: %w", s.prefix, s.certFile, s.keyFile, err))
	}
	if pair.Leaf == nil {
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return s.keep(fmt.Errorf("%s: parsing %s: %w", s.prefix, s.certFile, err))
		}
	}
	reloaded := s.cert != nil
	s.cert, s.certPEM, s.keyPEM = &pair, certPEM, secret.FromBytes(keyPEM)
	s.failLogged = false
	if reloaded {
		s.log.Info(s.prefix+": serving certificate reloaded", "file", s.certFile, "serial", pair.Leaf.SerialNumber.String(), "notAfter", pair.Leaf.NotAfter)
	}
	return s.cert, nil
}

// keep records a failed load and returns the pair in service, if any. The
// failure is logged once until a load succeeds again.
func (s *Source) keep(err error) (*tls.Certificate, error) {
	if s.cert == nil {
		return nil, fmt.Errorf("%s: %w: %w", s.prefix, ErrNoCertificate, err)
	}
	if !s.failLogged {
		s.failLogged = true
		s.log.Warn(s.prefix+": keeping the previous serving certificate", "err", err)
	}
	return s.cert, nil
}

// GetCertificate is for tls.Config.GetCertificate.
func (s *Source) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Current()
}

// Check reports an error when no valid certificate is in service or the one
// in service has expired at now.
func (s *Source) Check(now time.Time) error {
	c, err := s.Current()
	if err != nil {
		return err
	}
	if now.After(c.Leaf.NotAfter) {
		return fmt.Errorf("%s: serving certificate expired at %s", s.prefix, c.Leaf.NotAfter)
	}
	return nil
}
