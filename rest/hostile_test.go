package rest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// blockingRT never answers: it waits for the request's context, like a
// server that accepted the connection and then went silent.
type blockingRT struct{}

func (blockingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

func silentClient(t *testing.T, mod func(*Config)) *Client {
	t.Helper()
	cfg := &Config{Host: "http://silent.example", Logger: discardLogger(),
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return blockingRT{} }}
	if mod != nil {
		mod(cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRequestsDoNotWaitForeverForHeaders(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		want time.Duration
	}{
		{"default Config", nil, defaultResponseHeaderTimeout},
		{"configured timeout", func(c *Config) { c.Limits.ResponseHeaderTimeout = 5 * time.Second }, 5 * time.Second},
	}
	for _, tt := range tests {
		for _, kind := range []string{"Do", "Watch", "Stream"} {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					c := silentClient(t, tt.mod)
					start := time.Now()
					var err error
					req := c.Get().Namespace("a").Resource("configmaps")
					switch kind {
					case "Do":
						err = req.Do(context.Background()).Error()
					case "Watch":
						_, err = req.Watch(context.Background(), nil)
					case "Stream":
						_, err = req.Stream(context.Background())
					}
					var te *TransportError
					var le *LimitError
					if !errors.As(err, &te) || !errors.As(err, &le) || le.Limit != LimitResponseHeaderTimeout || le.Max != int64(tt.want) {
						t.Fatalf("err = %v, want a *TransportError wrapping the %s limit", err, LimitResponseHeaderTimeout)
					}
					if !errors.Is(err, ErrLimitExceeded) {
						t.Errorf("err does not wrap ErrLimitExceeded")
					}
					if waited := time.Since(start); waited != tt.want {
						t.Errorf("waited %s, want %s", waited, tt.want)
					}
				})
			})
		}
	}
}

func TestNegativeHeaderTimeoutWaitsForTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := silentClient(t, func(c *Config) { c.Limits.ResponseHeaderTimeout = -1 })
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		err := c.Get().AbsPath("x").Do(ctx).Error()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the context's deadline", err)
		}
	})
}

func TestResponseBodyLimits(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 3<<20)
	tests := []struct {
		name      string
		mod       func(*Config)
		gzip      bool
		body      []byte
		wantLimit string
	}{
		{"body within MaxResponseBytes", func(c *Config) { c.Limits.MaxResponseBytes = 4 << 20 }, false, big, ""},
		{"body over MaxResponseBytes", func(c *Config) { c.Limits.MaxResponseBytes = 1 << 20 }, false, big, LimitResponseBytes},
		{"gzip body over MaxResponseBytes once inflated", func(c *Config) { c.Limits.MaxResponseBytes = 1 << 20; c.Limits.MaxGzipRatio = -1 }, true, big, LimitResponseBytes},
		{"gzip body over MaxGzipRatio", nil, true, big, LimitGzipRatio},
		{"gzip body with the ratio check off", func(c *Config) { c.Limits.MaxGzipRatio = -1 }, true, big, ""},
		{"small gzip body of any ratio", nil, true, big[:1<<20], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if got := r.Header.Get("Accept-Encoding"); got != "gzip" {
					t.Errorf("Accept-Encoding %q, want gzip", got)
				}
				w.Header().Set("Content-Type", "text/plain")
				if tt.gzip {
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(gzipped(t, tt.body))
					return
				}
				w.Write(tt.body)
			})
			c, _ := newTestClient(t, srv, tt.mod)
			body, err := c.Get().AbsPath("x").DoRaw(t.Context())
			if tt.wantLimit == "" {
				if err != nil || !bytes.Equal(body, tt.body) {
					t.Fatalf("DoRaw = %d bytes, %v; want the body", len(body), err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tt.wantLimit || !strings.Contains(err.Error(), tt.wantLimit) {
				t.Fatalf("err = %v, want the %s limit", err, tt.wantLimit)
			}
		})
	}
}

func TestStatusDisagreeingWithTheResponseIsCorrected(t *testing.T) {
	tests := []struct {
		name       string
		st         metav1.Status
		http       int
		wantCode   int32
		is         func(error) bool
		wantInText string
	}{
		{"404 carrying Success and code 200", metav1.Status{Status: metav1.StatusSuccess, Code: 200}, 404, 404, apierrors.IsNotFound, "404"},
		{"404 carrying code 999", metav1.Status{Code: 999, Message: "odd"}, 404, 404, apierrors.IsNotFound, "odd"},
		{"500 carrying code -1", metav1.Status{Code: -1}, 500, 500, apierrors.IsInternalError, "500"},
		{"409 carrying code 404", metav1.Status{Code: 404}, 409, 409, apierrors.IsConflict, "409"},
		{"watch ERROR with code 999", metav1.Status{Code: 999, Reason: metav1.StatusReasonExpired}, 0, 500, apierrors.IsResourceExpired, "Expired"},
		{"watch ERROR with code 410", metav1.Status{Code: 410}, 0, 410, apierrors.IsGone, "410"},
		{"failure in a 2xx body keeps its code", metav1.Status{Status: metav1.StatusFailure, Code: 403, Message: "no"}, 0, 403, apierrors.IsForbidden, "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := statusErrorFrom(&tt.st, tt.http)
			if err.ErrStatus.Code != tt.wantCode || err.ErrStatus.Status != metav1.StatusFailure {
				t.Errorf("code %d, status %q; want %d, Failure", err.ErrStatus.Code, err.ErrStatus.Status, tt.wantCode)
			}
			if !tt.is(err) {
				t.Errorf("%v: the check fails", err)
			}
			if msg := err.Error(); msg == "" || !strings.Contains(msg, tt.wantInText) {
				t.Errorf("Error() = %q, want it to mention %q", msg, tt.wantInText)
			}
		})
	}
}

func TestErrorBodyExcerpt(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"short text", "  upstream went away\n", "upstream went away"},
		{"lines are joined", "a\nb\r\nc", "a b  c"},
		{"long text is cut", strings.Repeat("x", 300), strings.Repeat("x", 256) + "…"},
		{"NUL bytes are not text", strings.Repeat("\x00", 1024), ""},
		{"binary is not text", "\x1f\x8b\x08\x00\xff\xfe", ""},
		{"a stray control character is replaced", "bad \x07 bell", "bad ? bell"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := excerpt([]byte(tt.body), maxMessageBody); got != tt.want {
				t.Fatalf("excerpt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	s := &secrets{}
	s.add("static-token-1")
	s.addHeader("Bearer sent-token-22")
	s.addHeader("Basic " + "dXNlcjpzM2NyZXQtcHc=") // user:s3cret-pw
	s.add("ab")                                    // too short to redact
	for in, want := range map[string]string{
		"Authorization: Bearer sent-token-22":    "Authorization: " + redactedText,
		"token static-token-1 and sent-token-22": "token " + redactedText + " and " + redactedText,
		"basic dXNlcjpzM2NyZXQtcHc= s3cret-pw":   "basic " + redactedText + " " + redactedText,
		"nothing here, ab":                       "nothing here, ab",
	} {
		if got := s.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
	var none *secrets
	if got := none.redact("x"); got != "x" {
		t.Errorf("nil secrets changed the text: %q", got)
	}
}

// chunkReader hands out its data n bytes at a time, then fails.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

func TestProtoFrameMemoryGrowsWithItsBytes(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], defaultMaxFrameBytes-1)
	f := newProtoFrames(&chunkReader{data: append(hdr[:], make([]byte, 10)...), n: 4096}, defaultMaxFrameBytes)
	_, _, err := f.next()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v, want a truncated frame", err)
	}
	if c := cap(f.buf); c > frameGrowStep {
		t.Fatalf("a frame claiming %d bytes that sent 10 holds a buffer of %d", defaultMaxFrameBytes-1, c)
	}
}

func TestRetryAfterWaitsAreBudgeted(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		want time.Duration
	}{
		{"default budget", nil, time.Minute},
		{"configured budget", func(c *Config) { c.Limits.MaxRetryWait = 90 * time.Second }, 90 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, clk := newTestClient(t, srv, tt.mod)
			err := c.Get().AbsPath("x").Do(t.Context()).Error()
			if !apierrors.IsTooManyRequests(err) {
				t.Fatalf("err = %v", err)
			}
			var total time.Duration
			for _, d := range clk.Sleeps() {
				total += d
			}
			if total != tt.want {
				t.Fatalf("waited %s in all (%v), want %s", total, clk.Sleeps(), tt.want)
			}
		})
	}
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
