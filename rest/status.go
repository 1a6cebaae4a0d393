package rest

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxErrorBody bounds how much of a non-2xx response body is read.
const maxErrorBody = 1 << 20

// maxMessageBody bounds how much of a non-Status error body is quoted in the
// synthesised message.
const maxMessageBody = 256

// redactWindow is how much of a non-Status error body is searched for
// credentials before the excerpt is cut from it.
const redactWindow = 16 << 10

// errorTarget names what a request was about, for synthesised messages.
type errorTarget struct {
	verb     string
	resource schema.GroupResource
	name     string
}

// StatusError converts a non-2xx response into an *apierrors.StatusError.
// body is the (possibly truncated) response body and ct its Content-Type. A
// body holding a metav1.Status, in JSON or protobuf, is used (see
// statusErrorFrom for what is corrected in it); anything else is turned
// into a Status from the HTTP code, quoting a short excerpt of a text body,
// so apierrors.IsNotFound, IsConflict, IsTooManyRequests and friends work
// either way. Credentials in sec are redacted from every message.
func (c *Client) statusError(code int, ct string, h http.Header, body []byte, t errorTarget, sec *secrets) *apierrors.StatusError {
	if st := c.parseStatus(ct, body); st != nil {
		se := statusErrorFrom(st, code)
		sec.redactStatus(&se.ErrStatus)
		return se
	}
	retryAfter := 0
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = s
	}
	msg := ""
	if mediaType(ct, body) != mediaProtobuf {
		// Redacted before it is cut, so that no part of a credential
		// crossing the cut survives.
		head := body[:min(len(body), redactWindow)]
		msg = excerpt([]byte(sec.redact(string(head))), maxMessageBody)
	}
	se := apierrors.NewGenericServerResponse(code, t.verb, t.resource, t.name, msg, retryAfter, true)
	fillMessage(&se.ErrStatus)
	return se
}

// parseStatus returns the Status in body, or nil when body is not one.
func (c *Client) parseStatus(ct string, body []byte) *metav1.Status {
	if len(body) == 0 {
		return nil
	}
	mt := mediaType(ct, body)
	switch {
	case mt == mediaProtobuf:
		out, _, err := c.proto.Decode(body, nil, &metav1.Status{})
		if err != nil {
			return nil
		}
		st, ok := out.(*metav1.Status)
		if !ok {
			return nil
		}
		return st
	case isJSON(mt):
		var st metav1.Status
		if err := stdjson.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
			return nil
		}
		return &st
	}
	return nil
}

// statusErrorFrom makes the error of a failure Status the server sent.
// code is the HTTP status of the response, 0 when there is none (a watch
// ERROR event, a Status in a 2xx body). The Status is corrected so that
// the error means what the response did: a Code that is missing, outside
// 100–599 or, for a response with an error status, different from it, is
// replaced by the HTTP status (500 without one); a Status of "Success" is
// a Failure; an empty Message is filled in, so Error() is never "".
func statusErrorFrom(st *metav1.Status, code int) *apierrors.StatusError {
	s := *st
	switch {
	case code >= 400 && code < 600:
		s.Code = int32(code)
	case s.Code < 100 || s.Code > 599 || (s.Code >= 200 && s.Code < 300):
		if code == 0 {
			code = http.StatusInternalServerError
		}
		s.Code = int32(code)
	}
	s.Status = metav1.StatusFailure
	fillMessage(&s)
	return &apierrors.StatusError{ErrStatus: s}
}

// fillMessage gives a Status without a message one naming its code (and
// reason), so that its error's text is never empty.
func fillMessage(s *metav1.Status) {
	if s.Message != "" {
		return
	}
	s.Message = fmt.Sprintf("the server answered %d %s without a message", s.Code, http.StatusText(int(s.Code)))
	if s.Reason != "" {
		s.Message += " (reason " + quoteShort(string(s.Reason)) + ")"
	}
}

// excerpt returns the start of body as one line of printable text, at most
// n bytes (with "…" when cut), or "" when body is not text: invalid UTF-8,
// or more than one control character in ten.
func excerpt(body []byte, n int) string {
	b := bytes.TrimSpace(body)
	cut := len(b) > n
	b = truncateUTF8(b, n)
	if !utf8.Valid(b) {
		return ""
	}
	ctl := 0
	out := make([]rune, 0, len(b))
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError:
			ctl++
			r = '?'
		}
		out = append(out, r)
	}
	if ctl*10 > len(out) {
		return ""
	}
	s := strings.TrimSpace(string(out))
	if cut && s != "" {
		s += "…"
	}
	return s
}

// truncateUTF8 cuts b to at most n bytes without splitting a rune.
func truncateUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}
