package rest

import (
	"encoding/pem"
	"net/http/httptest"
	"testing"
)

// serverCA returns the PEM of an httptest TLS server's certificate.
func serverCA(t testing.TB, srv *httptest.Server) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}
