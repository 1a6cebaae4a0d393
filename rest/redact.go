package rest

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/secret"
)

// redactedText replaces a credential found in text the server sent back.
const redactedText = "<redacted>"

// minSecret is the shortest credential that is redacted: shorter strings
// would mangle ordinary text and are no secret worth the name.
const minSecret = 4

// secrets are the credentials a request may find echoed in what the server
// sends back (error bodies, Warning headers, watch ERROR events): the
// Config's static ones and the Authorization headers the request's
// attempts actually sent (token file, exec plugin, any Authenticator).
// Redaction happens before the text reaches an error, a WarningHandler or
// a log.
type secrets struct {
	mu   sync.Mutex
	list []secret.Value
}

func (s *secrets) add(v ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range v {
		s.addLocked(secret.New(x))
	}
}

// addValues adds credentials held as secret.Values.
func (s *secrets) addValues(v ...secret.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range v {
		s.addLocked(x)
	}
}

func (s *secrets) addLocked(x secret.Value) {
	if len(x.Reveal()) < minSecret || slices.ContainsFunc(s.list, x.Equal) {
		return
	}
	s.list = append(s.list, x)
	// Longest first, so that a secret containing another is replaced whole.
	slices.SortFunc(s.list, func(a, b secret.Value) int { return len(b.Reveal()) - len(a.Reveal()) })
}

// addHeader adds an Authorization header value and the credentials in it.
func (s *secrets) addHeader(v string) {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		s.add(v)
		return
	}
	cred = strings.TrimSpace(cred)
	s.add(v, cred)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pass, ok := strings.Cut(string(dec), ":"); ok {
				s.add(string(dec), pass)
			}
		}
	}
}

// redact replaces every known credential in text. A nil *secrets redacts
// nothing.
func (s *secrets) redact(text string) string {
	if s == nil || text == "" {
		return text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.list {
		if x := v.Reveal(); strings.Contains(text, x) {
			text = strings.ReplaceAll(text, x, redactedText)
		}
	}
	return text
}

// redactStatus redacts the server-written texts of st in place.
func (s *secrets) redactStatus(st *metav1.Status) {
	if s == nil {
		return
	}
	st.Message = s.redact(st.Message)
	st.Reason = metav1.StatusReason(s.redact(string(st.Reason)))
	if d := st.Details; d != nil {
		d.Name = s.redact(d.Name)
		for i := range d.Causes {
			d.Causes[i].Message = s.redact(d.Causes[i].Message)
			d.Causes[i].Field = s.redact(d.Causes[i].Field)
		}
	}
}

// newSecrets returns a request's secrets: a fresh set holding the client's
// static credentials.
func (c *Client) newSecrets() *secrets {
	s := &secrets{}
	s.addValues(c.static...)
	return s
}

type secretsKey struct{}

// authRecorder sits innermost in a client's transport chain, below every
// authenticator, and adds the Authorization header each attempt sends to
// the secrets of its request.
type authRecorder struct{ next http.RoundTripper }

func (a authRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if s, ok := req.Context().Value(secretsKey{}).(*secrets); ok {
		if v := req.Header.Get("Authorization"); v != "" {
			s.addHeader(v)
		}
	}
	return a.next.RoundTrip(req)
}

// withSecrets makes ctx carry s for authRecorder.
func withSecrets(ctx context.Context, s *secrets) context.Context {
	return context.WithValue(ctx, secretsKey{}, s)
}
