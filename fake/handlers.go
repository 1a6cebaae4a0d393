package fake

import (
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/scheme"
)

var optionsGV = schema.GroupVersion{Version: "v1"}

// managerFor is the field manager name of a write: the fieldManager
// parameter, else the User-Agent's program name, as kube-apiserver does.
func managerFor(r *http.Request, param string) string {
	if param != "" {
		return param
	}
	ua := r.Header.Get("User-Agent")
	if i := strings.IndexByte(ua, '/'); i >= 0 {
		ua = ua[:i]
	}
	if ua == "" {
		return "unknown"
	}
	return ua
}

func isDryRun(v []string) bool { return len(v) > 0 }

func (s *Server) handleGet(w http.ResponseWriter, req *request) error {
	s.mu.Lock()
	o := s.st.get(req.res, key{req.namespace, req.name})
	s.mu.Unlock()
	if o == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	if err := convErrOf(o); err != nil {
		return err
	}
	if req.sub == "scale" {
		sc, err := scaleOf(o)
		if err != nil {
			return err
		}
		writeTyped(w, req.mt, http.StatusOK, sc)
		return nil
	}
	req.writeObject(w, http.StatusOK, o)
	return nil
}

func (s *Server) handleCreate(w http.ResponseWriter, req *request) error {
	var opts metav1.CreateOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &opts); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	u, err := decodeBody(req.res, contentType(req.r), body)
	if err != nil {
		return err
	}
	s.mu.Lock()
	o, err := s.create(req, u, writeOpts{manager: managerFor(req.r, opts.FieldManager), dryRun: isDryRun(opts.DryRun)}, false)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	req.writeObject(w, http.StatusCreated, o)
	return nil
}

func (s *Server) handleUpdate(w http.ResponseWriter, req *request) error {
	var opts metav1.UpdateOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &opts); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	if req.sub == "scale" {
		return s.updateScale(w, req, body, writeOpts{manager: managerFor(req.r, opts.FieldManager), dryRun: isDryRun(opts.DryRun)})
	}
	u, err := decodeBody(req.res, contentType(req.r), body)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.st.get(req.res, key{req.namespace, req.name})
	if old == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	if err := convErrOf(old); err != nil {
		return err
	}
	o, err := s.update(req, old, u, writeOpts{manager: managerFor(req.r, opts.FieldManager), dryRun: isDryRun(opts.DryRun)}, false)
	if err != nil {
		return err
	}
	req.writeObject(w, http.StatusOK, o)
	return nil
}

func (s *Server) parseDelete(req *request) (deleteOpts, error) {
	var opts metav1.DeleteOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &opts); err != nil {
		return deleteOpts{}, apierrors.NewBadRequest(err.Error())
	}
	body, err := readBody(req.r)
	if err != nil {
		return deleteOpts{}, err
	}
	if len(body) > 0 {
		u, err := decodeBody(&resource{builtin: true}, contentType(req.r), body)
		if err != nil {
			return deleteOpts{}, err
		}
		if err := fromUnstructured(u, &opts); err != nil {
			return deleteOpts{}, apierrors.NewBadRequest("invalid DeleteOptions: " + err.Error())
		}
	}
	d := deleteOpts{gracePeriod: opts.GracePeriodSeconds, dryRun: isDryRun(opts.DryRun), propagation: metav1.DeletePropagationBackground}
	if opts.PropagationPolicy != nil {
		d.propagation = *opts.PropagationPolicy
	} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
		d.propagation = metav1.DeletePropagationOrphan
	}
	if p := opts.Preconditions; p != nil {
		d.precondUID, d.precondRV = p.UID, p.ResourceVersion
	}
	return d, nil
}

func (s *Server) handleDelete(w http.ResponseWriter, req *request) error {
	d, err := s.parseDelete(req)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.st.get(req.res, key{req.namespace, req.name})
	if o == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	if req.admits() {
		if err := s.admitDelete(req, o, d.dryRun); err != nil {
			return err
		}
		if o = s.st.get(req.res, key{req.namespace, req.name}); o == nil {
			return apierrors.NewNotFound(req.res.groupResource(), req.name)
		}
	}
	out, err := s.delete(o, d)
	if err != nil {
		return err
	}
	if s.st.get(req.res, o.key) == nil && !returnsDeletedObject[req.res.gvk.GroupKind()] {
		writeTyped(w, req.mt, http.StatusOK, &metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusSuccess,
			Details: &metav1.StatusDetails{
				Name: o.key.name, Group: req.res.gvr.Group, Kind: req.res.gvr.Resource, UID: o.meta().GetUID(),
			},
		})
		return nil
	}
	req.writeObject(w, http.StatusOK, out)
	return nil
}

// returnsDeletedObject are the kinds whose registry answers an immediate
// DELETE with the deleted object; all others answer with a Success Status.
// An object only marked for deletion is always answered with.
var returnsDeletedObject = map[schema.GroupKind]bool{
	{Kind: "Pod"}: true, {Kind: "ServiceAccount"}: true, {Group: "storage.k8s.io", Kind: "StorageClass"}: true,
}

func (s *Server) handleDeleteCollection(w http.ResponseWriter, req *request) error {
	d, err := s.parseDelete(req)
	if err != nil {
		return err
	}
	lo, err := parseListOptions(req)
	if err != nil {
		return err
	}
	f, err := newFilter(req, lo)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var victims []*object
	for _, o := range s.st.data[req.res.gvr] {
		if f.matches(o) {
			victims = append(victims, o)
		}
	}
	sortObjects(victims)
	listedAt := s.st.rv
	// Like kube-apiserver's registry, delete one object after the other,
	// each admitted on its own; the first refusal ends the request with
	// its error, leaving the objects deleted before it deleted and those
	// after it in place.
	for _, v := range victims {
		cur := s.st.get(v.res, v.key)
		if cur == nil {
			continue
		}
		if req.admits() {
			if err := s.admitDelete(req, cur, d.dryRun); err != nil {
				return err
			}
			if cur = s.st.get(v.res, v.key); cur == nil {
				continue
			}
		}
		if _, err := s.delete(cur, d); err != nil {
			return err
		}
	}
	// Like kube-apiserver, answer with the objects as they were listed
	// before the deletions.
	req.writeList(w, metav1.ListMeta{ResourceVersion: strconv.FormatUint(listedAt, 10)}, victims)
	return nil
}

func fromUnstructured(u map[string]any, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, into)
}
