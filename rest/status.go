package rest

import (
	"bytes"
	stdjson "encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxErrorBody bounds how much of a non-2xx response body is read.
const maxErrorBody = 1 << 20

// maxMessageBody bounds how much of a non-Status error body is quoted in the
// synthesised message.
const maxMessageBody = 1 << 10

// errorTarget names what a request was about, for synthesised messages.
type errorTarget struct {
	verb     string
	resource schema.GroupResource
	name     string
}

// StatusError converts a non-2xx response into an *apierrors.StatusError.
// body is the (possibly truncated) response body and ct its Content-Type. A
// body holding a metav1.Status, in JSON or protobuf, is used as is (its Code
// filled in from the response when missing); anything else is turned into a
// Status from the HTTP code, so apierrors.IsNotFound, IsConflict,
// IsTooManyRequests and friends work either way.
func (c *Client) statusError(code int, ct string, h http.Header, body []byte, t errorTarget) *apierrors.StatusError {
	if st := c.parseStatus(ct, body); st != nil {
		return statusErrorFrom(st, code)
	}
	retryAfter := 0
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = s
	}
	msg := ""
	if isText(ct, body) {
		msg = string(bytes.TrimSpace(truncateUTF8(body, maxMessageBody)))
	}
	return apierrors.NewGenericServerResponse(code, t.verb, t.resource, t.name, msg, retryAfter, true)
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

func statusErrorFrom(st *metav1.Status, code int) *apierrors.StatusError {
	s := *st
	if s.Code == 0 {
		s.Code = int32(code)
	}
	if s.Status == "" {
		s.Status = metav1.StatusFailure
	}
	return &apierrors.StatusError{ErrStatus: s}
}

func isText(ct string, body []byte) bool {
	mt := mediaType(ct, body)
	if mt == mediaProtobuf {
		return false
	}
	return utf8.Valid(truncateUTF8(body, maxMessageBody))
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
