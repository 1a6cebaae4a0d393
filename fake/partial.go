package fake

import (
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// partialMetadata returns the version of meta.k8s.io (v1 or v1beta1) in
// which Accept asks for metadata-only answers (PartialObjectMetadata, as
// the metadata client does) in a form the fake serves: JSON. It returns ""
// when Accept asks for no such thing, or has acceptable alternatives that
// are not metadata-only.
func partialMetadata(r *http.Request) string {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] == "" {
			continue
		}
		if v := params["v"]; t == mediaJSON && params["g"] == metav1.GroupName && (v == "v1" || v == "v1beta1") &&
			(params["as"] == "PartialObjectMetadata" || params["as"] == "PartialObjectMetadataList") {
			return v
		}
	}
	return ""
}

// metadataOnly returns the PartialObjectMetadata view of o in meta.k8s.io
// version v.
func metadataOnly(o *object, v string) *object {
	u := map[string]any{"apiVersion": metav1.GroupName + "/" + v, "kind": "PartialObjectMetadata", "metadata": o.u["metadata"]}
	return &object{res: o.res, key: o.key, rv: o.rv, u: u}
}

// writeObject answers with o, or its metadata when the request asked so.
func (req *request) writeObject(w http.ResponseWriter, code int, o *object) {
	if req.asMeta != "" {
		o = metadataOnly(o, req.asMeta)
	}
	writeObject(w, req.mt, code, o)
}

func (req *request) writeList(w http.ResponseWriter, lm metav1.ListMeta, items []*object) {
	if req.asMeta == "" {
		writeList(w, req.mt, req.res, lm, items)
		return
	}
	views := make([]*object, len(items))
	for i, o := range items {
		views[i] = metadataOnly(o, req.asMeta)
	}
	gv := schema.GroupVersion{Group: metav1.GroupName, Version: req.asMeta}
	writeList(w, mediaJSON, &resource{gvk: gv.WithKind("PartialObjectMetadata")}, lm, views)
}
