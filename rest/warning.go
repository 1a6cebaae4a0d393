package rest

import (
	"log/slog"
	"net/http"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Warning is one Warning header of a response.
type Warning struct {
	Code  int
	Agent string
	Text  string
}

// WarningHandlerFunc adapts a function to WarningHandler.
type WarningHandlerFunc func(code int, agent, text string)

// HandleWarning calls f.
func (f WarningHandlerFunc) HandleWarning(code int, agent, text string) { f(code, agent, text) }

// maxLoggedWarnings bounds the memory of the default handler.
const maxLoggedWarnings = 4096

// logOnce is the default WarningHandler: it logs each distinct message once
// per Client.
type logOnce struct {
	logger *slog.Logger
	mu     sync.Mutex
	seen   map[string]struct{}
}

func (l *logOnce) HandleWarning(code int, agent, text string) {
	l.mu.Lock()
	if l.seen == nil {
		l.seen = map[string]struct{}{}
	}
	_, dup := l.seen[text]
	if !dup && len(l.seen) < maxLoggedWarnings {
		l.seen[text] = struct{}{}
	}
	l.mu.Unlock()
	if !dup {
		l.logger.Warn("kube-apiserver warning", "text", text, "agent", agent, "code", code)
	}
}

// handleWarnings parses the Warning headers of h, hands each to the
// client's handler and returns them.
// Credentials in their texts (sec) are redacted first.
func (c *Client) handleWarnings(h http.Header, sec *secrets) []Warning {
	vals := h.Values("Warning")
	if len(vals) == 0 {
		return nil
	}
	parsed, _ := utilnet.ParseWarningHeaders(vals)
	out := make([]Warning, 0, len(parsed))
	for _, w := range parsed {
		text, agent := sec.redact(w.Text), sec.redact(w.Agent)
		c.warnings.HandleWarning(w.Code, agent, text)
		out = append(out, Warning{Code: w.Code, Agent: agent, Text: text})
	}
	return out
}
