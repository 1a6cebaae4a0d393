package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/kubego/kubego/kubegotest"
)

// openAPICases check /openapi/v2 and /openapi/v3, which kubectl needs for
// client-side validation, field validation and explain.
func openAPICases() []conformanceCase {
	return []conformanceCase{
		{"OpenAPIV3IndexListsBuiltinGroupVersions", openAPIV3IndexListsBuiltins},
		{"OpenAPIV2ServesJSONAndProtobuf", openAPIV2ServesJSONAndProtobuf},
		{"CustomResourceGroupVersionAppearsInOpenAPIV3", customResourceAppearsInOpenAPIV3},
		{"APIServicesNameTheServedGroupVersions", apiServicesNameServedGroupVersions},
	}
}

// index reads GET /openapi/v3.
func (e *env) openAPIIndex() openAPIIndex {
	e.Helper()
	raw, err := e.c.Get().AbsPath("/openapi/v3").Accept("application/json").Do(e.ctx).Raw()
	must(e, err)
	var idx openAPIIndex
	must(e, json.Unmarshal(raw, &idx))
	return idx
}

// openAPIDocument reads the v3 document the index names for key.
func (e *env) openAPIDocument(idx openAPIIndex, key string) map[string]any {
	e.Helper()
	p, ok := idx.Paths[key]
	if !ok {
		e.Fatalf("/openapi/v3 has no %s", key)
	}
	u, err := url.Parse(p.ServerRelativeURL)
	must(e, err)
	raw, err := e.c.Get().AbsPath(u.Path).Param("hash", u.Query().Get("hash")).Accept("application/json").Do(e.ctx).Raw()
	must(e, err)
	var doc map[string]any
	must(e, json.Unmarshal(raw, &doc))
	return doc
}

func schemaOf(doc map[string]any, name string) map[string]any {
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	s, _ := schemas[name].(map[string]any)
	return s
}

// GET /openapi/v3 names a document for every built-in group-version, and
// the document of apps/v1 describes Deployment with its group-version-kind.
func openAPIV3IndexListsBuiltins(e *env) {
	idx := e.openAPIIndex()
	for _, key := range []string{"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/apiextensions.k8s.io/v1", "apis/apiregistration.k8s.io/v1", "version"} {
		p, ok := idx.Paths[key]
		if !ok {
			e.Errorf("/openapi/v3 lacks %s", key)
			continue
		}
		if !strings.HasPrefix(p.ServerRelativeURL, "/openapi/v3/"+key+"?hash=") {
			e.Errorf("%s: serverRelativeURL %q", key, p.ServerRelativeURL)
		}
	}
	for key := range idx.Paths {
		if strings.Contains(key, "beta") || strings.Contains(key, "alpha") {
			e.Errorf("/openapi/v3 lists %s, a version a default server does not serve", key)
		}
	}
	doc := e.openAPIDocument(idx, "apis/apps/v1")
	if doc["openapi"] != "3.0.0" {
		e.Errorf("openapi = %v", doc["openapi"])
	}
	dep := schemaOf(doc, "io.k8s.api.apps.v1.Deployment")
	if dep == nil || fmt.Sprint(dep["x-kubernetes-group-version-kind"]) != "[map[group:apps kind:Deployment version:v1]]" {
		e.Errorf("Deployment schema: %v", dep["x-kubernetes-group-version-kind"])
	}
}

// GET /openapi/v2 answers JSON by default and gnostic's protobuf when
// asked for it (what kubectl's client-side validation reads).
func openAPIV2ServesJSONAndProtobuf(e *env) {
	raw, err := e.c.Get().AbsPath("/openapi/v2").Accept("application/json").Do(e.ctx).Raw()
	must(e, err)
	var doc struct {
		Swagger     string         `json:"swagger"`
		Definitions map[string]any `json:"definitions"`
	}
	must(e, json.Unmarshal(raw, &doc))
	if doc.Swagger != "2.0" || doc.Definitions["io.k8s.api.core.v1.Pod"] == nil {
		e.Errorf("v2 JSON: swagger %q, %d definitions, Pod present %v", doc.Swagger, len(doc.Definitions), doc.Definitions["io.k8s.api.core.v1.Pod"] != nil)
	}
	res := e.c.Get().AbsPath("/openapi/v2").Accept(mediaV2Protobuf).Do(e.ctx)
	pb, err := res.Raw()
	must(e, err)
	if ct := res.ContentType(); !strings.Contains(ct, "proto-openapi.spec.v2") || len(pb) == 0 || json.Valid(pb) {
		e.Errorf("v2 protobuf: Content-Type %q, %d bytes", ct, len(pb))
	}
}

// Once a CustomResourceDefinition is served, /openapi/v3 names its
// group-version, whose document describes the kind with the definition's
// schema plus apiVersion, kind and metadata, and its paths; deleting the
// definition removes it again.
func customResourceAppearsInOpenAPIV3(e *env) {
	group := e.ns + ".openapi.example.com"
	def := gadgetCRD(group, "")
	ver := def["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	ver["schema"] = map[string]any{"openAPIV3Schema": map[string]any{
		"type": "object", "description": "A gadget.",
		"properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
			"size": map[string]any{"type": "integer", "minimum": int64(1)}}}},
	}}
	ver["subresources"] = map[string]any{"status": map[string]any{}}
	_, err := e.createCRD(def)
	must(e, err)
	key := "apis/" + group + "/v1"
	// kube-apiserver adds and removes a definition's document from a
	// queue of its own; at a load of 10 on two cores that took longer
	// than 20 s, so the bound is two minutes (a quiet machine: under a
	// second).
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	kubegotest.Eventually(ctx, e, func(context.Context) error {
		if _, ok := e.openAPIIndex().Paths[key]; !ok {
			return errors.New(key + " not in /openapi/v3 yet")
		}
		return nil
	})
	doc := e.openAPIDocument(e.openAPIIndex(), key)
	kind := schemaOf(doc, reverse(group)+".v1.Gadget")
	props, _ := kind["properties"].(map[string]any)
	for _, p := range []string{"apiVersion", "kind", "metadata", "spec"} {
		if props[p] == nil {
			e.Errorf("Gadget schema lacks %s: %v", p, kind)
		}
	}
	if kind["description"] != "A gadget." {
		e.Errorf("Gadget description %v", kind["description"])
	}
	paths, _ := doc["paths"].(map[string]any)
	base := "/apis/" + group + "/v1/namespaces/{namespace}/gadgets"
	for _, p := range []string{"/apis/" + group + "/v1/gadgets", base, base + "/{name}", base + "/{name}/status"} {
		if paths[p] == nil {
			e.Errorf("paths lack %s", p)
		}
	}
	if paths[base+"/{name}/scale"] != nil {
		e.Errorf("paths have scale without the subresource")
	}
	patch, _ := paths[base+"/{name}"].(map[string]any)["patch"].(map[string]any)
	params, _ := patch["parameters"].([]any)
	if !slices.ContainsFunc(params, func(p any) bool { return p.(map[string]any)["name"] == "fieldValidation" }) {
		e.Errorf("patch of a gadget lacks the fieldValidation parameter kubectl looks for")
	}

	must(e, e.crds("DELETE").Name("gadgets."+group).Do(e.ctx).Error())
	kubegotest.Eventually(ctx, e, func(context.Context) error {
		if _, ok := e.openAPIIndex().Paths[key]; ok {
			return errors.New(key + " still in /openapi/v3")
		}
		return nil
	})
}

func reverse(group string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// apiregistration.k8s.io/v1 lists an APIService, available and local, for
// every group-version the server serves itself.
func apiServicesNameServedGroupVersions(e *env) {
	raw, err := e.c.Get().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices").Accept("application/json").Do(e.ctx).Raw()
	must(e, err)
	var list struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Group                string `json:"group"`
				Version              string `json:"version"`
				GroupPriorityMinimum int    `json:"groupPriorityMinimum"`
				VersionPriority      int    `json:"versionPriority"`
			} `json:"spec"`
			Status struct {
				Conditions []struct{ Type, Status, Reason string } `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	must(e, json.Unmarshal(raw, &list))
	byName := map[string]int{}
	for i, it := range list.Items {
		byName[it.Metadata.Name] = i
	}
	for _, name := range []string{"v1.", "v1.apps", "v1.batch", "v1.apiextensions.k8s.io"} {
		i, ok := byName[name]
		if !ok {
			e.Errorf("no APIService %s among %d", name, len(list.Items))
			continue
		}
		it := list.Items[i]
		if it.Metadata.Labels["kube-aggregator.kubernetes.io/automanaged"] != "onstart" || it.Spec.GroupPriorityMinimum == 0 || it.Spec.VersionPriority == 0 {
			e.Errorf("APIService %s: labels %v, spec %+v", name, it.Metadata.Labels, it.Spec)
		}
		if c := it.Status.Conditions; len(c) != 1 || c[0].Type != "Available" || c[0].Status != "True" || c[0].Reason != "Local" {
			e.Errorf("APIService %s: conditions %+v", name, c)
		}
	}
	if i, ok := byName["v1.apps"]; ok && (list.Items[i].Spec.Group != "apps" || list.Items[i].Spec.Version != "v1" || list.Items[i].Spec.GroupPriorityMinimum != 17800) {
		e.Errorf("v1.apps spec %+v", list.Items[i].Spec)
	}
	for name := range byName {
		if strings.Contains(name, "alpha") || strings.Contains(name, "beta") {
			e.Errorf("APIService %s for a version a default server does not serve", name)
		}
	}
}
