package fake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidContinue is wrapped by parseContinue for a malformed token.
var ErrInvalidContinue = errors.New("invalid continue token")

// continueToken is the opaque state of a paginated list: the snapshot's
// resourceVersion and the key after which the next page starts. Its wire
// form is base64 (URL alphabet) of JSON, like kube-apiserver's.
//
// A resourceVersion of latestRV is the token a 410 Expired hands back
// when the snapshot of a token is gone: it continues the list from the
// same key at the newest resourceVersion (an inconsistent list).
type continueToken struct {
	Version string `json:"v"`
	RV      int64  `json:"rv"`
	Start   string `json:"start"` // "namespace/name" of the next key, or "name"
}

const (
	tokenVersion = "meta.k8s.io/v1"
	latestRV     = -1
)

// encodeContinue is the token of the page after the one ending at key after.
func encodeContinue(rv int64, after key) string {
	return encodeContinueAt(rv, key{namespace: after.namespace, name: after.name + "\x00"})
}

// encodeContinueAt is the token of the page starting at key start (as
// parseContinue returns it).
func encodeContinueAt(rv int64, start key) string {
	data, _ := json.Marshal(continueToken{Version: tokenVersion, RV: rv, Start: start.namespace + "/" + start.name})
	return base64.RawURLEncoding.EncodeToString(data)
}

// parseContinue decodes a token. The returned key is the first key the next
// page may hold (keys compare greater or equal); the resourceVersion is
// positive or latestRV.
func parseContinue(tok string) (int64, key, error) {
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(tok, "="))
	if err != nil {
		return 0, key{}, fmt.Errorf("%w: %v", ErrInvalidContinue, err)
	}
	var ct continueToken
	if err := json.Unmarshal(data, &ct); err != nil {
		return 0, key{}, fmt.Errorf("%w: %v", ErrInvalidContinue, err)
	}
	if ct.Version != tokenVersion {
		return 0, key{}, fmt.Errorf("%w: unsupported version %q", ErrInvalidContinue, ct.Version)
	}
	if ct.RV == 0 || ct.RV < latestRV {
		return 0, key{}, fmt.Errorf("%w: resource version %d", ErrInvalidContinue, ct.RV)
	}
	ns, name, ok := strings.Cut(ct.Start, "/")
	if !ok || !strings.HasSuffix(name, "\x00") {
		return 0, key{}, fmt.Errorf("%w: bad start key", ErrInvalidContinue)
	}
	return ct.RV, key{namespace: ns, name: name}, nil
}
