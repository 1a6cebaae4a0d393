package fake

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kubego/kubego/scheme"
)

const applyCBOR = "application/apply-patch+cbor"

func (s *Server) handlePatch(w http.ResponseWriter, req *request) error {
	var opts metav1.PatchOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &opts); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	pt := types.PatchType(contentType(req.r))
	switch pt {
	case types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType, types.ApplyYAMLPatchType:
	default:
		return unsupportedMedia(string(pt))
	}
	if pt == types.StrategicMergePatchType && !req.res.builtin {
		return unsupportedMedia(string(pt))
	}
	wo := writeOpts{manager: managerFor(req.r, opts.FieldManager), dryRun: isDryRun(opts.DryRun)}
	if pt == types.ApplyYAMLPatchType {
		if opts.FieldManager == "" {
			return apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("PatchOptions").GroupKind(), "", field.ErrorList{field.Required(field.NewPath("fieldManager"), "is required for apply patch")})
		}
		if req.sub == "scale" {
			return unsupportedMedia(string(pt))
		}
		force := opts.Force != nil && *opts.Force
		return s.apply(w, req, body, wo, force)
	}
	if opts.Force != nil {
		return apierrors.NewBadRequest("force: Forbidden: may not be specified for non-apply patch")
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
	if req.sub == "scale" {
		sc, err := scaleOf(old)
		if err != nil {
			return err
		}
		cur, err := utiljson.Marshal(sc)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		patched, err := applyPatch(pt, cur, body, sc)
		if err != nil {
			return err
		}
		o, err := s.setScale(req, old, patched, wo)
		if err != nil {
			return err
		}
		sc, err = scaleOf(o)
		if err != nil {
			return err
		}
		writeTyped(w, req.mt, http.StatusOK, sc)
		return nil
	}
	cur, err := old.encodeJSON()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var schemaObj any
	if pt == types.StrategicMergePatchType {
		schemaObj = newTyped(req.res.gvk)
	}
	patched, err := applyPatch(pt, cur, body, schemaObj)
	if err != nil {
		return err
	}
	u, err := decodeJSONMap(patched)
	if err != nil {
		return err
	}
	o, err := s.update(req, old, u, wo, false)
	if err != nil {
		return err
	}
	req.writeObject(w, http.StatusOK, o)
	return nil
}

// applyPatch applies a JSON, merge or strategic merge patch to the JSON
// document cur. schemaObj is the Go type strategic merge reads its
// patchStrategy tags from.
func applyPatch(pt types.PatchType, cur, patch []byte, schemaObj any) ([]byte, error) {
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		out, err := p.Apply(cur)
		if err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schemaGR, "", err.Error(), 0, false)
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(cur, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	case types.StrategicMergePatchType:
		if !json.Valid(patch) {
			return nil, apierrors.NewBadRequest("invalid JSON patch")
		}
		out, err := strategicpatch.StrategicMergePatch(cur, patch, schemaObj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	return nil, unsupportedMedia(string(pt))
}

// apply serves a server-side apply patch.
func (s *Server) apply(w http.ResponseWriter, req *request, body []byte, wo writeOpts, force bool) error {
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		return apierrors.NewBadRequest("error decoding YAML: " + err.Error())
	}
	u, err := decodeJSONMap(j)
	if err != nil {
		return err
	}
	if err := checkKind(req.res, u); err != nil {
		return err
	}
	au := &unstructured.Unstructured{Object: u}
	if au.GetName() != "" && au.GetName() != req.name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", au.GetName(), req.name))
	}
	au.SetName(req.name)
	if req.res.namespaced && au.GetNamespace() == "" {
		au.SetNamespace(req.namespace)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fm, err := s.fieldManager(req.res, req.sub)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	old := s.st.get(req.res, key{req.namespace, req.name})
	if old == nil {
		if req.sub != "" {
			return apierrors.NewNotFound(req.res.groupResource(), req.name)
		}
		live := &unstructured.Unstructured{Object: map[string]any{}}
		live.SetGroupVersionKind(req.res.gvk)
		out, err := fm.Apply(live, au, wo.manager, force)
		if err != nil {
			return applyError(err)
		}
		ou, ok := out.(*unstructured.Unstructured)
		if !ok {
			return apierrors.NewInternalError(fmt.Errorf("field manager returned %T", out))
		}
		o, err := s.create(req, ou.Object, wo, true)
		if err != nil {
			return err
		}
		req.writeObject(w, http.StatusCreated, o)
		return nil
	}
	if err := convErrOf(old); err != nil {
		return err
	}
	live := &unstructured.Unstructured{Object: old.copy()}
	out, err := fm.Apply(live, au, wo.manager, force)
	if err != nil {
		return applyError(err)
	}
	ou, ok := out.(*unstructured.Unstructured)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("field manager returned %T", out))
	}
	o, err := s.update(req, old, ou.Object, wo, true)
	if err != nil {
		return err
	}
	req.writeObject(w, http.StatusOK, o)
	return nil
}

// applyError passes conflicts and other Status errors through and reports
// anything else (an apply configuration the schema rejects) as 400.
func applyError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewBadRequest(err.Error())
}
