package rest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/internal/codec/dedup"
)

// drainFrames decodes every event of a stream the way a watch does and
// checks the contract: events are whole, the end is EOF or a typed error.
func drainFrames(t *testing.T, mt string, frames frameReader) {
	for i := 0; i < 1000; i++ {
		typ, raw, err := frames.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("frame error %T %v is not a *DecodeError", err, err)
			}
			return
		}
		// Typed decoding (the in-place protobuf path) and the known-object
		// lookup must hold to the same contract as the generic decoder.
		newCM := func() runtime.Object { return &corev1.ConfigMap{} }
		held := testCM("a", "1")
		known := func(ns, name, rv string) (runtime.Object, bool) {
			if name == "a" && rv == "1" {
				return held, true
			}
			return nil, false
		}
		for _, c := range []struct {
			newObject func() runtime.Object
			hints     codec.Hints
		}{
			{nil, codec.Hints{}},
			{newCM, codec.Hints{}},
			{newCM, codec.Hints{Known: known}},
			{newCM, codec.Hints{DropManagedFields: true}},
			{nil, codec.Hints{Known: known, DropManagedFields: true}},
			{newCM, codec.Hints{Known: known, DropManagedFields: true, Share: dedup.New(dedup.Options{})}},
			{nil, codec.Hints{Share: dedup.New(dedup.Options{})}},
		} {
			own := append([]byte(nil), raw...) // a JSON event is cut in place
			ev, err := testCodecClient.decodeEvent(mt, typ, own, eventOptions{newObject: c.newObject, events: codec.NewEvents(c.hints)})
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) && !isStatusError(err) {
					t.Fatalf("event error %T %v is neither a *DecodeError nor a StatusError", err, err)
				}
				continue
			}
			if ev.Object == nil {
				t.Fatalf("event %s without object", ev.Type)
			}
		}
		ev, err := testCodecClient.decodeEvent(mt, typ, raw, eventOptions{})
		if err != nil {
			return
		}
		if ev.Object == nil {
			t.Fatalf("event %s without object", ev.Type)
		}
		if ev.Type == watch.Error {
			if _, ok := ev.Object.(*metav1.Status); !ok {
				t.Fatalf("ERROR event holds %T", ev.Object)
			}
		}
	}
}

func FuzzWatchJSONFrames(f *testing.F) {
	f.Add([]byte(jsonEventLine("ADDED", cmJSON("a", "1")) + jsonEventLine("DELETED", cmJSON("a", "2"))))
	f.Add([]byte(jsonEventLine("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}`)))
	f.Add([]byte(jsonEventLine("BOOKMARK", `{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"3"}}`)))
	f.Add([]byte(`{"type":"ADDED","object":{"apiVersion":"example.com/v1","kind":"W"}}{"type":`))
	f.Add([]byte("null\n[]\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		drainFrames(t, mediaJSON, newJSONFrames(bytes.NewReader(data), 4096))
	})
}

func FuzzWatchProtobufFrames(f *testing.F) {
	f.Add(protoFrame(f, "ADDED", protoObject(f, testCM("a", "1"))))
	f.Add(concat(protoFrame(f, "MODIFIED", protoObject(f, testCM("a", "2"))), protoFrame(f, "ERROR", protoObject(f, &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Code: 410}))))
	f.Add(binary.BigEndian.AppendUint32(nil, 0xffffffff))
	f.Add([]byte{0, 0, 0, 2, 0xff})
	f.Add(protoFrame(f, "ADDED", []byte("k8s\x00\x0a\x02")))
	f.Fuzz(func(t *testing.T, data []byte) {
		drainFrames(t, mediaProtobuf, newProtoFrames(bytes.NewReader(data), 4096))
	})
}

func FuzzStatusBody(f *testing.F) {
	f.Add(404, mediaJSON, statusJSON(404, metav1.StatusReasonNotFound, "x"))
	f.Add(403, mediaProtobuf, statusProto(f, &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden}))
	f.Add(500, "text/html", []byte("<html>boom</html>"))
	f.Add(429, "", []byte{})
	f.Add(409, mediaJSON, []byte(`{"kind":"Status","code":"x"}`))
	f.Add(404, mediaJSON, []byte(`{"kind":"Status","status":"Success","code":200}`))
	f.Add(502, "text/plain", []byte("Authorization: Bearer fuzz-SECRET-token\x00\x00"))
	f.Fuzz(func(t *testing.T, code int, ct string, body []byte) {
		if code < 300 || code > 599 {
			code = 300 + (code%300+300)%300
		}
		h := http.Header{"Retry-After": {"1"}}
		sec := &secrets{}
		sec.add("fuzz-SECRET-token")
		err := testCodecClient.statusError(code, ct, h, body, errorTarget{verb: "GET"}, sec)
		if err == nil || err.ErrStatus.Code == 0 || err.Error() == "" {
			t.Fatalf("statusError(%d) = %v", code, err)
		}
		if code >= 400 && (err.ErrStatus.Code != int32(code) || err.ErrStatus.Status != metav1.StatusFailure) {
			t.Fatalf("statusError(%d): code %d, status %q", code, err.ErrStatus.Code, err.ErrStatus.Status)
		}
		if strings.Contains(err.Error(), "fuzz-SECRET-token") {
			t.Fatalf("statusError quotes a credential: %v", err)
		}
		if mediaType(ct, body) != mediaProtobuf && len(err.ErrStatus.Message) > 4*maxMessageBody && !isStatusBody(body) {
			t.Fatalf("statusError quotes %d bytes of a body that is no Status", len(err.ErrStatus.Message))
		}
		// Decoding arbitrary bodies as objects must not panic either.
		_ = testCodecClient.decode(body, ct, &corev1.ConfigMap{})
	})
}

// isStatusBody reports whether body holds a JSON Status (whose message is
// quoted whole).
func isStatusBody(body []byte) bool {
	return bytes.Contains(body, []byte(`"Status"`))
}
