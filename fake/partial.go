package fake

import (
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// partialMetadata reports whether Accept asks for metadata-only answers
// (PartialObjectMetadata, as the metadata client does) in a form the fake
// serves: JSON. It returns false when Accept has acceptable alternatives
// that are not metadata-only.
func partialMetadata(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] == "" {
			continue
		}
		if t == mediaJSON && params["g"] == metav1.GroupName && params["v"] == "v1" &&
			(params["as"] == "PartialObjectMetadata" || params["as"] == "PartialObjectMetadataList") {
			return true
		}
	}
	return false
}

// metadataOnly returns the PartialObjectMetadata view of o.
func metadataOnly(o *object) *object {
	u := map[string]any{"apiVersion": metav1.SchemeGroupVersion.String(), "kind": "PartialObjectMetadata", "metadata": o.u["metadata"]}
	return &object{res: o.res, key: o.key, rv: o.rv, u: u}
}

// writeObject answers with o, or its metadata when the request asked so.
func (req *request) writeObject(w http.ResponseWriter, code int, o *object) {
	if req.asMeta {
		o = metadataOnly(o)
	}
	writeObject(w, req.mt, code, o)
}

func (req *request) writeList(w http.ResponseWriter, lm metav1.ListMeta, items []*object) {
	if !req.asMeta {
		writeList(w, req.mt, req.res, lm, items)
		return
	}
	views := make([]*object, len(items))
	for i, o := range items {
		views[i] = metadataOnly(o)
	}
	writeList(w, mediaJSON, &resource{gvk: metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")}, lm, views)
}
