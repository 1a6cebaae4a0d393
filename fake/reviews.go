package fake

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// reviews are the resources that are questions to the API server
// (kubectl auth can-i, kubectl auth whoami, token and access reviews):
// kube-apiserver answers a create with the review's status and stores
// nothing; they have no other verb. The fake authorizes everything and
// authenticates nobody, and answers accordingly.
var reviews = map[schema.GroupResource]func() map[string]any{
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  allowed,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      allowed,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: allowed,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}: func() map[string]any {
		return map[string]any{
			"resourceRules":    []any{map[string]any{"verbs": []any{"*"}, "apiGroups": []any{"*"}, "resources": []any{"*"}}},
			"nonResourceRules": []any{map[string]any{"verbs": []any{"*"}, "nonResourceURLs": []any{"*"}}},
			"incomplete":       false,
		}
	},
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}: func() map[string]any {
		return map[string]any{"userInfo": map[string]any{"username": user, "groups": []any{userGroup, "system:authenticated"}}}
	},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}: func() map[string]any {
		return map[string]any{"authenticated": false, "error": "the fake API server authenticates no token"}
	},
}

func allowed() map[string]any {
	return map[string]any{"allowed": true, "reason": "the fake API server allows every request"}
}

// user and userGroup are who every request to the fake is, as a
// SelfSubjectReview reports: an administrator, since the fake authorizes
// everything.
const (
	user      = "system:admin"
	userGroup = "system:masters"
)

// handleReview answers the create of a review (see reviews) with its
// status, without storing it.
func (s *Server) handleReview(w http.ResponseWriter, req *request, status func() map[string]any) error {
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	u, err := decodeBody(req.res, contentType(req.r), body)
	if err != nil {
		return err
	}
	if err := checkKind(req.res, u); err != nil {
		return err
	}
	if _, ok := u["metadata"].(map[string]any); !ok {
		u["metadata"] = map[string]any{}
	}
	u["status"] = status()
	req.writeObject(w, http.StatusCreated, newObject(req.res, u, 0))
	return nil
}
