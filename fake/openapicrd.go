package fake

import (
	"encoding/json"
	"maps"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The v3 document of a custom resource is made from the one kube-apiserver
// served for a template definition (crd-template.json in the capture:
// group template.example.com, version v1, kind Gizmo, plural gizmos,
// namespaced, with status and scale): the names are substituted, the
// paths of absent subresources dropped, a cluster-scoped resource's paths
// lose their namespace, and the kind's schema is the definition's
// openAPIV3Schema with apiVersion, kind and metadata added, as
// kube-apiserver does.
const (
	templateGroup    = "template.example.com"
	templateVersion  = "v1"
	templateKind     = "Gizmo"
	templateListKind = "GizmoList"
	templatePlural   = "gizmos"
)

// crdVersion is what one served version of a definition contributes to
// its group-version's document.
type crdVersion struct {
	group, version, kind, listKind, plural string
	namespaced, status, scale              bool
	schema                                 map[string]any // openAPIV3Schema, a private copy
}

// customOpenAPIV3 returns the v3 documents of the custom resources served
// now through CustomResourceDefinitions, keyed by index key
// ("apis/example.com/v1"). Resources added through Options.Resources or
// Register have no schema and no document.
func (s *Server) customOpenAPIV3() map[string][]byte {
	byGV := map[string][]crdVersion{}
	s.mu.Lock()
	for _, o := range s.st.data[crdGVR] {
		for _, v := range crdVersions(o.u) {
			key := "apis/" + v.group + "/" + v.version
			byGV[key] = append(byGV[key], v)
		}
	}
	s.mu.Unlock()
	if len(byGV) == 0 {
		return nil
	}
	template, ok := capturedEntry("crd-template.json")
	if !ok {
		return nil
	}
	out := map[string][]byte{}
	for key, vs := range byGV {
		var doc map[string]any
		for _, v := range vs {
			d, err := crdDocument(template, v)
			if err != nil {
				continue
			}
			doc = mergeDocuments(doc, d)
		}
		if doc == nil {
			continue
		}
		if data, err := json.Marshal(doc); err == nil {
			out[key] = data
		}
	}
	return out
}

// crdVersions reads the served versions of a stored definition. The
// schemas are copies: the caller may change them.
func crdVersions(u map[string]any) []crdVersion {
	group, _, _ := unstructured.NestedString(u, "spec", "group")
	plural, _, _ := unstructured.NestedString(u, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(u, "spec", "names", "kind")
	listKind, _, _ := unstructured.NestedString(u, "spec", "names", "listKind")
	scope, _, _ := unstructured.NestedString(u, "spec", "scope")
	if listKind == "" {
		listKind = kind + "List"
	}
	var out []crdVersion
	for _, sv := range servedCRDVersions(u, plural, kind) {
		name, status, scale := sv.name, sv.status, sv.scale
		sch, _, _ := unstructured.NestedMap(sv.spec, "schema", "openAPIV3Schema")
		if sch == nil {
			sch = map[string]any{}
		}
		out = append(out, crdVersion{
			group: group, version: name, kind: kind, listKind: listKind, plural: plural,
			namespaced: scope == "Namespaced", status: status, scale: scale, schema: sch,
		})
	}
	return out
}

// crdDocument makes the v3 document of one custom resource version from
// the template.
func crdDocument(template []byte, v crdVersion) (map[string]any, error) {
	camel := operationName(v.group)
	r := strings.NewReplacer(
		templateGroup+"/"+templateVersion, v.group+"/"+v.version,
		reverseGroup(templateGroup)+"."+templateVersion+".", reverseGroup(v.group)+"."+v.version+".",
		operationName(templateGroup)+upperFirst(templateVersion), camel+upperFirst(v.version),
		lowerFirst(operationName(templateGroup))+"_"+templateVersion, lowerFirst(camel)+"_"+v.version,
		`"group":"`+templateGroup+`"`, `"group":"`+v.group+`"`,
		templateListKind, v.listKind,
		templateKind, v.kind,
		templatePlural, v.plural,
	)
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.Replace(string(template))), &doc); err != nil {
		return nil, err
	}
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	paths, _ := doc["paths"].(map[string]any)
	if schemas == nil || paths == nil {
		return doc, nil
	}
	// Every GVK extension names the template's version: set the real one.
	walkGVK(doc, v.group, v.version)

	name := reverseGroup(v.group) + "." + v.version + "." + v.kind
	tmpl, _ := schemas[name].(map[string]any)
	tprops, _ := tmpl["properties"].(map[string]any)
	kindSchema := v.schema
	props, _ := kindSchema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		kindSchema["properties"] = props
	}
	for _, p := range []string{"apiVersion", "kind", "metadata"} {
		if tp, ok := tprops[p]; ok {
			props[p] = tp
		}
	}
	kindSchema["x-kubernetes-group-version-kind"] = tmpl["x-kubernetes-group-version-kind"]
	schemas[name] = kindSchema

	for p := range paths {
		switch {
		case strings.HasSuffix(p, "/status") && !v.status, strings.HasSuffix(p, "/scale") && !v.scale:
			delete(paths, p)
		}
	}
	if !v.scale {
		for s := range schemas {
			if strings.HasPrefix(s, "io.k8s.api.autoscaling.v1.Scale") {
				delete(schemas, s)
			}
		}
	}
	if !v.namespaced {
		clusterScoped(paths)
	}
	return doc, nil
}

// clusterScoped turns the paths of a namespaced resource into those of a
// cluster-scoped one: no all-namespaces list, no namespace segment or
// parameter, no "Namespaced" in operation ids.
func clusterScoped(paths map[string]any) {
	const ns = "/namespaces/{namespace}"
	// The rewritten paths go to a separate map first: a rewritten path
	// can equal an all-namespaces one still to be dropped.
	namespaced := maps.Clone(paths)
	clear(paths)
	for p, item := range namespaced {
		if !strings.Contains(p, ns) {
			continue
		}
		im, _ := item.(map[string]any)
		if params, ok := im["parameters"].([]any); ok {
			var kept []any
			for _, pa := range params {
				if pm, _ := pa.(map[string]any); pm["name"] == "namespace" && pm["in"] == "path" {
					continue
				}
				kept = append(kept, pa)
			}
			im["parameters"] = kept
		}
		for _, op := range im {
			if om, ok := op.(map[string]any); ok {
				if id, ok := om["operationId"].(string); ok {
					om["operationId"] = strings.Replace(id, "Namespaced", "", 1)
				}
			}
		}
		paths[strings.Replace(p, ns, "", 1)] = im
	}
}

// walkGVK sets the version of every x-kubernetes-group-version-kind of
// group in v.
func walkGVK(v any, group, version string) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if k == "x-kubernetes-group-version-kind" {
				setGVKVersion(c, group, version)
				continue
			}
			walkGVK(c, group, version)
		}
	case []any:
		for _, c := range t {
			walkGVK(c, group, version)
		}
	}
}

func setGVKVersion(v any, group, version string) {
	switch t := v.(type) {
	case map[string]any:
		if t["group"] == group {
			t["version"] = version
		}
	case []any:
		for _, c := range t {
			setGVKVersion(c, group, version)
		}
	}
}

// mergeDocuments adds the paths and schemas of b to a (a may be nil).
func mergeDocuments(a, b map[string]any) map[string]any {
	if a == nil {
		return b
	}
	for _, section := range []string{"paths"} {
		am, _ := a[section].(map[string]any)
		bm, _ := b[section].(map[string]any)
		if am != nil {
			maps.Copy(am, bm)
		}
	}
	ac, _ := a["components"].(map[string]any)
	bc, _ := b["components"].(map[string]any)
	as, _ := ac["schemas"].(map[string]any)
	bs, _ := bc["schemas"].(map[string]any)
	if as != nil {
		maps.Copy(as, bs)
	}
	return a
}

// reverseGroup is the group with its labels reversed, the prefix of its
// schema names: example.com → com.example.
func reverseGroup(g string) string {
	parts := strings.Split(g, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

// operationName is a group as operation ids spell it: each label and
// hyphenated word capitalised, separators dropped (my-app.example.com →
// MyAppExampleCom).
func operationName(g string) string {
	var b strings.Builder
	up := true
	for _, r := range g {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
