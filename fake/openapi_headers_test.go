package fake_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"testing"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// httpClient is a plain HTTP client with cfg's TLS material that does not
// follow redirects, to see the server's own answer.
func httpClient(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	tc := &tls.Config{RootCAs: x509.NewCertPool()}
	tc.RootCAs.AppendCertsFromPEM(cfg.TLS.CAData)
	if len(cfg.TLS.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.TLS.CertData, cfg.TLS.KeyData)
		if err != nil {
			t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{
		Transport:     &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// openAPIAnswer is what a client can see of an OpenAPI response besides
// the document itself.
type openAPIAnswer struct {
	code                                  int
	contentType, cacheControl, vary       string
	etag, expires, location, lastModified bool
}

func answerOf(t *testing.T, c *http.Client, host, path, accept, ifNoneMatch string) (openAPIAnswer, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	h := resp.Header
	return openAPIAnswer{
		code: resp.StatusCode, contentType: h.Get("Content-Type"), cacheControl: h.Get("Cache-Control"), vary: h.Get("Vary"),
		etag: h.Get("Etag") != "", expires: h.Get("Expires") != "", location: h.Get("Location") != "", lastModified: h.Get("Last-Modified") != "",
	}, h.Get("Etag")
}

// TestOpenAPIAnswersMatchServer compares the status, media type and caching
// headers of the fake's OpenAPI answers with the real server's.
func TestOpenAPIAnswersMatchServer(t *testing.T) {
	cp := testenv.Shared(t)
	skipUnlessCapturedVersion(t, cp)
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	realCfg, fakeCfg := cp.Config(), srv.Config()
	realC, fakeC := httpClient(t, realCfg), httpClient(t, fakeCfg)
	_, realHash := answerOf(t, realC, realCfg.Host, "/openapi/v3/apis/apps/v1", "application/json", "")
	hash := realHash
	if len(hash) > 2 {
		hash = hash[1 : len(hash)-1]
	}
	for _, tc := range []struct{ name, path, accept, ifNoneMatch string }{
		{"v2 without Accept", "/openapi/v2", "", ""},
		{"v2 JSON", "/openapi/v2", "application/json", ""},
		{"v2 protobuf", "/openapi/v2", mediaV2Protobuf, ""},
		{"v2 protobuf legacy", "/openapi/v2", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", ""},
		{"v2 unacceptable", "/openapi/v2", "text/plain", ""},
		{"v3 index", "/openapi/v3", "application/json", ""},
		{"v3 document", "/openapi/v3/apis/apps/v1", "application/json", ""},
		{"v3 document with its hash", "/openapi/v3/apis/apps/v1?hash=" + hash, "application/json", ""},
		{"v3 document with another hash", "/openapi/v3/apis/apps/v1?hash=0123", "application/json", ""},
		{"v3 document not modified", "/openapi/v3/apis/apps/v1", "application/json", realHash},
		{"v3 document unknown", "/openapi/v3/apis/nothing.example.com/v1", "application/json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := answerOf(t, realC, realCfg.Host, tc.path, tc.accept, tc.ifNoneMatch)
			got, _ := answerOf(t, fakeC, fakeCfg.Host, tc.path, tc.accept, tc.ifNoneMatch)
			if got != want {
				t.Errorf("fake:\n  %+v\nreal server:\n  %+v", got, want)
			}
		})
	}
}
