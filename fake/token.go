package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// tokenRequest is what serviceaccounts/token takes and answers.
var tokenRequest = &resource{gvk: schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}, builtin: true}

// Token lifetimes kube-apiserver allows and defaults to.
const (
	minTokenSeconds     = 10 * 60
	maxTokenSeconds     = 1 << 32
	defaultTokenSeconds = 60 * 60
)

// defaultAudience is the audience of a token request that names none: the
// issuer of a kube-apiserver configured as testenv and most clusters are.
const defaultAudience = "https://kubernetes.default.svc"

// isToken reports whether sub of res is serviceaccounts/token.
func isToken(res *resource, sub string) bool {
	return sub == "token" && res.builtin && res.gvr.GroupResource() == schema.GroupResource{Resource: "serviceaccounts"}
}

// handleToken answers a create of serviceaccounts/<name>/token with a
// TokenRequest whose status carries a token for that service account.
// The token has a JWT's shape (its claims name the service account,
// audiences and expiry) but no signature: nothing can verify it.
func (s *Server) handleToken(w http.ResponseWriter, req *request) error {
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	u, err := decodeBody(tokenRequest, contentType(req.r), body)
	if err != nil {
		return err
	}
	if err := checkKind(tokenRequest, u); err != nil {
		return err
	}
	s.mu.Lock()
	sa := s.st.get(req.res, key{req.namespace, req.name})
	s.mu.Unlock()
	if sa == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	secs, ok, _ := unstructured.NestedInt64(u, "spec", "expirationSeconds")
	if !ok {
		secs = defaultTokenSeconds
	}
	path := field.NewPath("spec", "expirationSeconds")
	switch {
	case secs < minTokenSeconds:
		return apierrors.NewInvalid(tokenRequest.gvk.GroupKind(), "", field.ErrorList{field.Invalid(path, secs, "may not specify a duration less than 10 minutes")})
	case secs > maxTokenSeconds:
		return apierrors.NewInvalid(tokenRequest.gvk.GroupKind(), "", field.ErrorList{field.Invalid(path, secs, "may not specify a duration larger than 2^32 seconds")})
	}
	auds, _, _ := unstructured.NestedStringSlice(u, "spec", "audiences")
	if len(auds) == 0 {
		auds = []string{defaultAudience}
	}
	now := s.clock.Now()
	exp := now.Add(time.Duration(secs) * time.Second)
	claims, err := json.Marshal(map[string]any{
		"aud": auds, "exp": exp.Unix(), "iat": now.Unix(), "iss": defaultAudience,
		"sub": fmt.Sprintf("system:serviceaccount:%s:%s", req.namespace, req.name),
	})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	enc := base64.RawURLEncoding
	token := enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc.EncodeToString(claims) + "."
	out := map[string]any{
		"apiVersion": tokenRequest.gvk.GroupVersion().String(), "kind": tokenRequest.gvk.Kind,
		"metadata": map[string]any{"name": req.name, "namespace": req.namespace, "creationTimestamp": nil},
		"spec":     map[string]any{"audiences": toAny(auds), "expirationSeconds": secs},
		"status":   map[string]any{"token": token, "expirationTimestamp": metav1.NewTime(exp).UTC().Format(time.RFC3339)},
	}
	req.writeObject(w, http.StatusCreated, &object{res: tokenRequest, key: key{req.namespace, req.name}, u: out})
	return nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
