package fake

import "strings"

// defaultCRD sets what kube-apiserver defaults in an
// apiextensions.k8s.io/v1 CustomResourceDefinition on every write: the
// singular name (the kind in lower case) and list kind (the kind and
// "List"), conversion strategy None, and port 443 for a conversion
// webhook's service. u is changed in place; content of the wrong shape is
// left as it is.
func defaultCRD(u map[string]any) {
	spec, ok := u["spec"].(map[string]any)
	if !ok {
		return
	}
	if names, ok := spec["names"].(map[string]any); ok {
		kind, _ := names["kind"].(string)
		if s, _ := names["singular"].(string); s == "" {
			names["singular"] = strings.ToLower(kind)
		}
		if l, _ := names["listKind"].(string); l == "" && kind != "" {
			names["listKind"] = kind + "List"
		}
	}
	conv, ok := spec["conversion"].(map[string]any)
	if !ok {
		if spec["conversion"] == nil {
			spec["conversion"] = map[string]any{"strategy": "None"}
		}
		return
	}
	webhook, _ := conv["webhook"].(map[string]any)
	cc, _ := webhook["clientConfig"].(map[string]any)
	if svc, ok := cc["service"].(map[string]any); ok && svc["port"] == nil {
		svc["port"] = int64(443)
	}
}
