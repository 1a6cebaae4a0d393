package fake_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"

	"github.com/kubego/kubego/internal/openapicapture"
)

// updateCapture rewrites what the fake copies from kube-apiserver (the
// OpenAPI documents, the discovery snapshot) from a fresh control plane:
// go test ./fake -run Capture -update-capture
var updateCapture = flag.Bool("update-capture", false, "capture kube-apiserver's OpenAPI documents and discovery into internal/openapicapture and testdata/")

const (
	capturePath     = "../internal/openapicapture/" + openapicapture.Path
	mediaV2Protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// openAPIIndex is the document GET /openapi/v3 answers.
type openAPIIndex struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

func getRaw(ctx context.Context, t *testing.T, c *rest.Client, accept, path string, query url.Values) []byte {
	t.Helper()
	req := c.Get().AbsPath(path).SetHeader("Accept", accept)
	for k, vs := range query {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	data, err := req.DoRaw(ctx)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return data
}

func bigClient(t *testing.T, cfg *rest.Config) *rest.Client {
	t.Helper()
	cfg.Limits.MaxResponseBytes = 256 << 20
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// v3Documents fetches the v3 index and every document it names whose key
// keep accepts, keyed by the index key ("apis/apps/v1").
func v3Documents(ctx context.Context, t *testing.T, c *rest.Client, keep func(string) bool) (openAPIIndex, map[string][]byte) {
	t.Helper()
	var idx openAPIIndex
	if err := json.Unmarshal(getRaw(ctx, t, c, "application/json", "/openapi/v3", nil), &idx); err != nil {
		t.Fatalf("decode /openapi/v3: %v", err)
	}
	docs := map[string][]byte{}
	for key, p := range idx.Paths {
		if !keep(key) {
			continue
		}
		u, err := url.Parse(p.ServerRelativeURL)
		if err != nil {
			t.Fatalf("index entry %s: %v", key, err)
		}
		docs[key] = getRaw(ctx, t, c, "application/json", u.Path, u.Query())
	}
	return idx, docs
}

// TestOpenAPICapture checks that the fake's OpenAPI documents for built-in
// kinds are the ones a real kube-apiserver serves; with -update-capture it
// captures them again from a fresh control plane instead.
func TestOpenAPICapture(t *testing.T) {
	if *updateCapture {
		captureOpenAPI(t)
		return
	}
	cp := testenv.Shared(t)
	skipUnlessCapturedVersion(t, cp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	real := bigClient(t, cp.Config())
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	fk := bigClient(t, srv.Config())

	// Custom resources other tests install on the shared control plane are
	// left out of the comparison: a built-in group has no dot or ends in
	// k8s.io, and the conformance CRDs use neither.
	builtin := builtinGroups(t)
	_, realDocs := v3Documents(ctx, t, real, func(key string) bool { return builtin[groupOfKey(key)] })
	fakeIdx, fakeDocs := v3Documents(ctx, t, fk, func(string) bool { return true })
	if got, want := slices.Sorted(mapsKeys(fakeDocs)), slices.Sorted(mapsKeys(realDocs)); !slices.Equal(got, want) {
		t.Errorf("v3 index of the fake: %v\nreal server's built-in entries: %v", got, want)
	}
	for key, want := range realDocs {
		if got, ok := fakeDocs[key]; ok && !bytes.Equal(got, want) {
			t.Errorf("v3 document %s differs from the real server's (recapture with -update-capture)", key)
		}
	}
	_ = fakeIdx

	var realV2, fakeV2 map[string]any
	if err := json.Unmarshal(getRaw(ctx, t, real, "application/json", "/openapi/v2", nil), &realV2); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(getRaw(ctx, t, fk, "application/json", "/openapi/v2", nil), &fakeV2); err != nil {
		t.Fatal(err)
	}
	dropCustomV2(realV2, builtin)
	if !reflect.DeepEqual(realV2, fakeV2) {
		t.Errorf("/openapi/v2 of the fake differs from the real server's built-in part (recapture with -update-capture): %s", v2Diff(realV2, fakeV2))
	}
	pb := getRaw(ctx, t, fk, mediaV2Protobuf, "/openapi/v2", nil)
	if len(pb) == 0 || json.Valid(pb) {
		t.Errorf("/openapi/v2 in protobuf: %d bytes, JSON=%v", len(pb), json.Valid(pb))
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// groupOfKey is the API group of a v3 index key ("apis/apps/v1" → apps,
// "api/v1" → ""); other keys (version, openid, …) count as the core group.
func groupOfKey(key string) string {
	parts := strings.Split(key, "/")
	if len(parts) >= 2 && parts[0] == "apis" {
		return parts[1]
	}
	return ""
}

// builtinGroups are the groups kube-apiserver serves itself: those of the
// fake with every version, and apiregistration.k8s.io.
func builtinGroups(t *testing.T) map[string]bool {
	t.Helper()
	srv := fake.NewServer(fake.Options{AllVersions: true})
	defer srv.Close()
	c := bigClient(t, srv.Config())
	var list struct {
		Groups []struct{ Name string } `json:"groups"`
	}
	if err := json.Unmarshal(getRaw(context.Background(), t, c, "application/json", "/apis", nil), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{"": true, "apiregistration.k8s.io": true}
	for _, g := range list.Groups {
		out[g.Name] = true
	}
	return out
}

// dropCustomV2 removes from a v2 document the paths and definitions of
// groups not in builtin (a definition shared by several groups, such as
// DeleteOptions, stays while one of them is built in).
func dropCustomV2(doc map[string]any, builtin map[string]bool) {
	if paths, ok := doc["paths"].(map[string]any); ok {
		for p := range paths {
			if parts := strings.Split(strings.TrimPrefix(p, "/"), "/"); len(parts) >= 2 && parts[0] == "apis" && !builtin[parts[1]] {
				delete(paths, p)
			}
		}
	}
	if defs, ok := doc["definitions"].(map[string]any); ok {
		for name, d := range defs {
			gvks, _ := d.(map[string]any)["x-kubernetes-group-version-kind"].([]any)
			custom := len(gvks) > 0
			for _, g := range gvks {
				if group, _ := g.(map[string]any)["group"].(string); builtin[group] {
					custom = false
				}
			}
			if custom {
				delete(defs, name)
			}
		}
	}
}

func captureOpenAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, err := testenv.Start(ctx, testenv.Options{Version: testenv.DefaultVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	c := bigClient(t, cp.Config())
	files := map[string][]byte{
		"v2.json": getRaw(ctx, t, c, "application/json", "/openapi/v2", nil),
		"v2.pb":   getRaw(ctx, t, c, mediaV2Protobuf, "/openapi/v2", nil),
		"v3.json": getRaw(ctx, t, c, "application/json", "/openapi/v3", nil),
	}
	_, docs := v3Documents(ctx, t, c, func(string) bool { return true })
	for key, d := range docs {
		files["v3/"+key+".json"] = d
	}
	files["apiservices.json"] = captureAPIServices(ctx, t, c)
	files["crd-template.json"] = captureCRDTemplate(ctx, t, cp, c)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(mapsKeys(files)) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(capturePath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("captured %d documents from kube-apiserver %s into %s (%d bytes)", len(files), cp.Version(), capturePath, buf.Len())
}

// v2Diff names the top-level sections and entries that differ.
func v2Diff(want, got map[string]any) string {
	var out []string
	for k, w := range want {
		g := got[k]
		wm, ok1 := w.(map[string]any)
		gm, ok2 := g.(map[string]any)
		if !ok1 || !ok2 {
			if !reflect.DeepEqual(w, g) {
				out = append(out, k)
			}
			continue
		}
		for name := range wm {
			if !reflect.DeepEqual(wm[name], gm[name]) {
				out = append(out, k+"/"+name)
			}
		}
		for name := range gm {
			if _, ok := wm[name]; !ok {
				out = append(out, k+"/"+name+" (fake only)")
			}
		}
	}
	slices.Sort(out)
	if len(out) > 10 {
		out = append(out[:10], "…")
	}
	return strings.Join(out, ", ")
}

// templateCRD is the definition whose v3 document the fake uses as the
// pattern of every custom resource's: namespaced, with status and scale.
func templateCRD() map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gizmos.template.example.com"},
		"spec": map[string]any{
			"group": "template.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}, "scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
				"schema":       map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
}

func captureCRDTemplate(ctx context.Context, t *testing.T, cp *testenv.ControlPlane, c *rest.Client) []byte {
	t.Helper()
	if err := cp.InstallCRDObjects(ctx, &unstructured.Unstructured{Object: templateCRD()}); err != nil {
		t.Fatal(err)
	}
	const key = "apis/template.example.com/v1"
	var doc []byte
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		idx, docs := v3Documents(ctx, t, c, func(k string) bool { return k == key })
		if _, ok := idx.Paths[key]; !ok {
			return errors.New(key + " not in /openapi/v3 yet")
		}
		doc = docs[key]
		return nil
	})
	return doc
}

// TestOpenAPICustomResourceMatchesServer installs the same definitions on
// both servers (namespaced with status and scale, cluster-scoped without
// subresources, two kinds in one group-version) and compares the v3
// documents of their group-versions.
func TestOpenAPICustomResourceMatchesServer(t *testing.T) {
	cp := testenv.Shared(t)
	skipUnlessCapturedVersion(t, cp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	group := fmt.Sprintf("doc%d.my-app.example.com", time.Now().UnixNano()%1_000_000)
	widget := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{
				map[string]any{
					"name": "v1", "served": true, "storage": true,
					"subresources": map[string]any{"status": map[string]any{}, "scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
					"schema": map[string]any{"openAPIV3Schema": map[string]any{
						"type": "object", "description": "A widget.", "required": []any{"spec"},
						"properties": map[string]any{
							"spec": map[string]any{"type": "object", "properties": map[string]any{
								"replicas": map[string]any{"type": "integer", "format": "int32", "minimum": int64(0)},
								"color":    map[string]any{"type": "string", "enum": []any{"red", "blue"}, "default": "red"},
								"ports": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
									"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
							}},
							"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
						},
					}},
				},
				map[string]any{
					"name": "v1beta1", "served": true, "storage": false,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				},
			},
		},
	}
	gear := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gears." + group},
		"spec": map[string]any{
			"group": group, "scope": "Cluster",
			"names": map[string]any{"plural": "gears", "singular": "gear", "kind": "Gear"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"teeth": map[string]any{"type": "integer"}}}},
			}},
		},
	}
	if err := cp.InstallCRDObjects(ctx, &unstructured.Unstructured{Object: widget}, &unstructured.Unstructured{Object: gear}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		c := bigClient(t, cp.Config())
		for _, name := range []string{"widgets." + group, "gears." + group} {
			_ = c.Delete().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name).Do(context.Background()).Error()
		}
	}()
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	fk := bigClient(t, srv.Config())
	for _, def := range []map[string]any{widget, gear} {
		body, _ := json.Marshal(def)
		if err := fk.Post().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").Body(body).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
	}
	real := bigClient(t, cp.Config())
	for _, key := range []string{"apis/" + group + "/v1", "apis/" + group + "/v1beta1"} {
		var want map[string]any
		kubegotest.Eventually(ctx, t, func(context.Context) error {
			idx, docs := v3Documents(ctx, t, real, func(k string) bool { return k == key })
			if _, ok := idx.Paths[key]; !ok {
				return errors.New(key + " not in /openapi/v3 yet")
			}
			want = nil
			if err := json.Unmarshal(docs[key], &want); err != nil {
				return err
			}
			// Both kinds of v1 must be in the document.
			if paths, _ := want["paths"].(map[string]any); key == "apis/"+group+"/v1" && paths["/apis/"+group+"/v1/gears"] == nil {
				return errors.New(key + " does not describe gears yet")
			}
			return nil
		})
		_, docs := v3Documents(ctx, t, fk, func(k string) bool { return k == key })
		var got map[string]any
		if err := json.Unmarshal(docs[key], &got); err != nil {
			t.Fatalf("fake's %s: %v", key, err)
		}
		if diffs := jsonDiff("", want, got, nil); len(diffs) > 0 {
			if len(diffs) > 15 {
				diffs = append(diffs[:15], "…")
			}
			t.Errorf("%s differs from the real server's at:\n  %s", key, strings.Join(diffs, "\n  "))
		}
	}
}

// jsonDiff lists the JSON pointers where got differs from want.
func jsonDiff(at string, want, got any, out []string) []string {
	wm, ok1 := want.(map[string]any)
	gm, ok2 := got.(map[string]any)
	if ok1 && ok2 {
		for _, k := range slices.Sorted(mapsKeys(wm)) {
			if _, ok := gm[k]; !ok {
				out = append(out, at+"/"+k+" (missing)")
				continue
			}
			out = jsonDiff(at+"/"+k, wm[k], gm[k], out)
		}
		for _, k := range slices.Sorted(mapsKeys(gm)) {
			if _, ok := wm[k]; !ok {
				out = append(out, at+"/"+k+" (fake only)")
			}
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		out = append(out, fmt.Sprintf("%s: real %.80v, fake %.80v", at, want, got))
	}
	return out
}

// captureAPIServices keeps of each APIService a fresh kube-apiserver
// registers what the fake seeds: name, labels, spec and the condition
// types, statuses, reasons and messages.
func captureAPIServices(ctx context.Context, t *testing.T, c *rest.Client) []byte {
	t.Helper()
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(getRaw(ctx, t, c, "application/json", "/apis/apiregistration.k8s.io/v1/apiservices", nil), &list); err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, it := range list.Items {
		md, _ := it["metadata"].(map[string]any)
		var conds []any
		st, _ := it["status"].(map[string]any)
		cs, _ := st["conditions"].([]any)
		for _, cond := range cs {
			cm, _ := cond.(map[string]any)
			conds = append(conds, map[string]any{"type": cm["type"], "status": cm["status"], "reason": cm["reason"], "message": cm["message"]})
		}
		out = append(out, map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": md["name"], "labels": md["labels"]},
			"spec":     it["spec"],
			"status":   map[string]any{"conditions": conds},
		})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
