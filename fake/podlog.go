package fake

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubego/kubego/internal/podlogs"
)

// Pod logs: GET pods/{name}/log serves what SetPodLog and AppendPodLog
// wrote for the container, as kube-apiserver serves what the pod's
// kubelet answers: the container named by the request or the pod's only
// one, tailLines, limitBytes and follow; a pod bound to no node has an
// empty log.

// isLog reports whether sub of res is pods/log.
func isLog(res *resource, sub string) bool {
	return sub == "log" && res.builtin && res.gvr.GroupResource() == schema.GroupResource{Resource: "pods"}
}

// SetPodLog sets the log content of a container of a pod (its log is
// empty until then). The pod need not exist yet.
func (s *Server) SetPodLog(namespace, pod, container string, content []byte) {
	s.logs.Set(podlogs.Key{Namespace: namespace, Pod: pod, Container: container}, content)
}

// AppendPodLog adds content to the log of a container of a pod: what a
// reader following the log (follow=true) receives next.
func (s *Server) AppendPodLog(namespace, pod, container string, content []byte) {
	s.logs.Append(podlogs.Key{Namespace: namespace, Pod: pod, Container: container}, content)
}

// handleLog answers GET pods/{name}/log.
func (s *Server) handleLog(w http.ResponseWriter, req *request) error {
	opts, err := parseLogOptions(req.r.URL.Query())
	if err != nil {
		return err
	}
	s.mu.Lock()
	o := s.st.get(req.res, key{req.namespace, req.name})
	s.mu.Unlock()
	if o == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	container, err := logContainer(o, opts.container)
	if err != nil {
		return err
	}
	if node, _, _ := unstructured.NestedString(o.u, "spec", "nodeName"); node == "" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	s.logs.Serve(req.r.Context(), w, podlogs.Key{Namespace: req.namespace, Pod: req.name, Container: container}, opts.Options)
	return nil
}

// logOptions are the parameters of a log request the fake honours.
type logOptions struct {
	podlogs.Options
	container string
}

// parseLogOptions reads container, follow, tailLines and limitBytes,
// refusing the counts kube-apiserver refuses.
func parseLogOptions(q url.Values) (logOptions, error) {
	o := logOptions{Options: podlogs.Options{TailLines: -1}, container: q.Get("container")}
	var err error
	if o.Follow, err = boolParam(q, "follow"); err != nil {
		return o, err
	}
	var errs field.ErrorList
	if v := q.Get("tailLines"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apierrors.NewBadRequest(fmt.Sprintf("invalid tailLines %q: %v", v, err))
		}
		if n < 0 {
			errs = append(errs, field.Invalid(field.NewPath("tailLines"), n, "must be greater than or equal to 0"))
		}
		o.TailLines = n
	}
	if v := q.Get("limitBytes"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apierrors.NewBadRequest(fmt.Sprintf("invalid limitBytes %q: %v", v, err))
		}
		if n < 1 {
			errs = append(errs, field.Invalid(field.NewPath("limitBytes"), n, "must be greater than 0"))
		}
		o.LimitBytes = n
	}
	if len(errs) > 0 {
		return o, apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, "", errs)
	}
	return o, nil
}

func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apierrors.NewBadRequest(fmt.Sprintf("invalid %s %q: %v", name, v, err))
	}
	return b, nil
}

// logContainer is the container whose log a request reads, refused as
// kube-apiserver refuses it.
func logContainer(o *object, name string) (string, error) {
	var names []string
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		cs, _, _ := unstructured.NestedSlice(o.u, "spec", list)
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				n, _ := cm["name"].(string)
				names = append(names, n)
			}
		}
	}
	pod := o.key.name
	if name != "" {
		for _, n := range names {
			if n == name {
				return name, nil
			}
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod))
	}
	main, _, _ := unstructured.NestedSlice(o.u, "spec", "containers")
	switch len(main) {
	case 1:
		n, _ := main[0].(map[string]any)["name"].(string)
		return n, nil
	case 0:
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod))
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod, names))
}
