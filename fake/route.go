package fake

import (
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/apipath"
)

// request is a parsed resource request.
type request struct {
	verb      string // get list watch create update patch delete deletecollection
	res       *resource
	namespace string
	name      string
	sub       string // "", "status" or "scale"
	mt        string // negotiated response media type
	asMeta    string // answer with PartialObjectMetadata of this meta.k8s.io version (v1, v1beta1); "" for whole objects
	r         *http.Request
	// w is the response being written, for the Warning headers of
	// admission webhooks and ratcheted CEL rules; nil for the server's own
	// writes.
	w http.ResponseWriter
	// warned are the warnings sent (each is sent once).
	warned []string
}

// parsePath splits a resource path. ok is false for paths that are not
// resource paths (discovery, health). The returned error is a NotFound when
// the group/version or resource is not served.
func (s *Server) parsePath(r *http.Request) (*request, bool, error) {
	p, ok := apipath.Split(r.URL.Path)
	if !ok {
		return nil, false, nil
	}
	gv := schema.GroupVersion{Group: p.Group, Version: p.Version}
	req := &request{r: r}
	watchPrefix := p.Watch
	if p.Proxy {
		return nil, true, notFoundPath()
	}
	parts := p.Parts
	if p.InNamespace {
		req.namespace = p.Namespace
	}
	if len(parts) == 0 || len(parts) > 3 {
		return nil, true, notFoundPath()
	}
	s.mu.Lock()
	res := s.reg.byGVR[gv.WithResource(parts[0])]
	s.mu.Unlock()
	if res == nil {
		return nil, true, notFoundPath()
	}
	req.res = res
	if len(parts) > 1 {
		req.name = parts[1]
	}
	if len(parts) > 2 {
		req.sub = parts[2]
		_, isPart := res.part(req.sub)
		switch {
		case req.sub == "status" && res.status, req.sub == "scale" && res.scale, isPart, isToken(res, req.sub), isBinding(res, req.sub), isLog(res, req.sub):
		default:
			return nil, true, notFoundPath()
		}
	}
	if req.namespace != "" && !res.namespaced {
		return nil, true, notFoundPath()
	}
	q := r.URL.Query()
	isWatch := watchPrefix || q.Get("watch") == "true" || q.Get("watch") == "1"
	switch r.Method {
	case http.MethodGet:
		switch {
		case isWatch:
			req.verb = "watch"
		case req.name == "":
			req.verb = "list"
		default:
			req.verb = "get"
		}
	case http.MethodPost:
		req.verb = "create"
	case http.MethodPut:
		req.verb = "update"
	case http.MethodPatch:
		req.verb = "patch"
	case http.MethodDelete:
		req.verb = "delete"
		if req.name == "" {
			req.verb = "deletecollection"
		}
	default:
		return nil, true, apierrors.NewMethodNotSupported(res.groupResource(), r.Method)
	}
	if req.sub == "" && !slices.Contains(res.verbs(), req.verb) {
		return nil, true, methodNotAllowed()
	}
	if isToken(res, req.sub) || isBinding(res, req.sub) {
		if req.verb != "create" {
			return nil, true, methodNotAllowed()
		}
		return req, true, nil
	}
	if isLog(res, req.sub) {
		if req.verb != "get" {
			return nil, true, methodNotAllowed()
		}
		return req, true, nil
	}
	if req.verb == "create" && req.name != "" {
		return nil, true, apierrors.NewMethodNotSupported(res.groupResource(), "create with a name")
	}
	if req.name == "" && (req.verb == "update" || req.verb == "patch") {
		return nil, true, apierrors.NewMethodNotSupported(res.groupResource(), req.verb+" of a collection")
	}
	if req.sub != "" && req.verb != "get" && req.verb != "update" && req.verb != "patch" {
		return nil, true, apierrors.NewMethodNotSupported(res.groupResource(), req.verb+" on "+req.sub)
	}
	if p, ok := res.part(req.sub); ok && !slices.Contains(p.verbs, req.verb) {
		return nil, true, methodNotAllowed()
	}
	return req, true, nil
}

// methodNotAllowed is kube-apiserver's answer to a verb a resource's
// registry does not implement at that path.
func methodNotAllowed() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed,
		Message: "the server does not allow this method on the requested resource", Details: &metav1.StatusDetails{},
	}}
}

func notFoundPath() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource", Details: &metav1.StatusDetails{},
	}}
}

// ServeHTTP serves the Kubernetes API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.logger.Debug("fake: request", "method", r.Method, "path", r.URL.Path)
	if s.serveNonResource(w, r) || s.serveOpenAPI(w, r) {
		return
	}
	req, ok, err := s.parsePath(r)
	if !ok {
		writeError(w, mediaJSON, notFoundPath())
		return
	}
	mt, acceptable := negotiate(r, req == nil || req.res.builtin)
	if !acceptable {
		writeError(w, mediaJSON, notAcceptable())
		return
	}
	if err != nil {
		writeError(w, mt, err)
		return
	}
	req.mt, req.w = mt, w
	if v := partialMetadata(r); v != "" {
		req.mt, req.asMeta = mediaJSON, v
	}
	if err := s.faults.apply(r.Context(), req); err != nil {
		writeError(w, mt, err)
		return
	}
	switch {
	case isToken(req.res, req.sub):
		err = s.handleToken(w, req)
	case isBinding(req.res, req.sub) || (isBindings(req.res) && req.verb == "create"):
		err = s.handleBinding(w, req)
	case isLog(req.res, req.sub):
		err = s.handleLog(w, req)
	case reviews[req.res.gvr.GroupResource()] != nil:
		err = s.handleReview(w, req, reviews[req.res.gvr.GroupResource()])
	case req.verb == "get":
		err = s.handleGet(w, req)
	case req.verb == "list":
		err = s.handleList(w, req)
	case req.verb == "watch":
		err = s.handleWatch(w, req)
	case req.verb == "create":
		err = s.handleCreate(w, req)
	case req.verb == "update":
		err = s.handleUpdate(w, req)
	case req.verb == "patch":
		err = s.handlePatch(w, req)
	case req.verb == "delete":
		err = s.handleDelete(w, req)
	case req.verb == "deletecollection":
		err = s.handleDeleteCollection(w, req)
	}
	if err != nil {
		writeError(w, mt, err)
	}
}
