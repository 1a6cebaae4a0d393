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
type continueToken struct {
	Version string `json:"v"`
	RV      uint64 `json:"rv"`
	Start   string `json:"start"` // "namespace/name" of the next key, or "name"
}

const tokenVersion = "meta.k8s.io/v1"

func encodeContinue(rv uint64, after key) string {
	data, _ := json.Marshal(continueToken{Version: tokenVersion, RV: rv, Start: after.namespace + "/" + after.name + "\x00"})
	return base64.RawURLEncoding.EncodeToString(data)
}

// parseContinue decodes a token. The returned key is the first key the next
// page may hold (keys compare greater or equal).
func parseContinue(tok string) (uint64, key, error) {
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
	if ct.RV == 0 {
		return 0, key{}, fmt.Errorf("%w: no resource version", ErrInvalidContinue)
	}
	ns, name, ok := strings.Cut(ct.Start, "/")
	if !ok || !strings.HasSuffix(name, "\x00") {
		return 0, key{}, fmt.Errorf("%w: bad start key", ErrInvalidContinue)
	}
	return ct.RV, key{namespace: ns, name: name}, nil
}
