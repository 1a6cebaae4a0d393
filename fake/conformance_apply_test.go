package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// applyCases check that server-side apply merges by the schema
// kube-apiserver merges with: the OpenAPI models of built-in kinds (list
// types, map keys, atomic structs) and a definition's structural schema for
// custom resources.
func applyCases() []conformanceCase {
	return []conformanceCase{
		{"ApplyKeepsEachManagersEntryOfACustomResourceMapList", applyCustomMapList},
		{"ApplyMergesACustomResourceSetList", applyCustomSetList},
		{"ApplyReplacesACustomResourceAtomicMapWhole", applyCustomAtomicMap},
		{"ApplyMergesOwnerReferencesAndFinalizersOfACustomResource", applyCustomMetadataLists},
		{"ApplyKeysServicePortsByPortAndProtocol", applyServicePorts},
		{"ApplyKeysContainerPortsByPortAndProtocol", applyContainerPorts},
		{"ApplyRecordsAtomicStructsAsOneField", applyAtomicStructFields},
		{"ApplyToCustomResourceStatusMergesByItsSchema", applyCustomStatus},
		{"ApplyFollowsAnUpdatedDefinitionSchema", applyAfterDefinitionUpdate},
		{"ApplyMergesTheMetadataOfAnEmbeddedResource", applyEmbeddedMetadata},
		{"ManagedFieldsOfARichWorkloadAreTheServers", richWorkloadManagedFields},
	}
}

// sprockets makes sure the Sprocket CRD is served: its spec has a list of
// type map keyed by port and protocol, a list of type set, an atomic map,
// a granular map, a preserved subtree and an embedded resource; its status (a subresource) a
// list of type map keyed by type.
func (e *env) sprockets() func(verb string) *rest.Request {
	e.Helper()
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	str := map[string]any{"type": "string"}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "sprockets." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "sprockets", "singular": "sprocket", "kind": "Sprocket", "listKind": "SprocketList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": obj(map[string]any{
					"spec": obj(map[string]any{
						"ports": map[string]any{
							"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"port", "protocol"},
							"items": map[string]any{"type": "object", "required": []any{"port", "protocol"}, "properties": map[string]any{
								"port": map[string]any{"type": "integer"}, "protocol": str, "name": str,
							}},
						},
						"tags":     map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": str},
						"selector": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": str},
						"labels":   map[string]any{"type": "object", "additionalProperties": str},
						"extra":    map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
						"template": map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
					}),
					"status": obj(map[string]any{
						"conditions": map[string]any{
							"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"},
							"items": map[string]any{"type": "object", "required": []any{"type"}, "properties": map[string]any{"type": str, "status": str}},
						},
					}),
				})},
			}},
		},
	}
	return e.serveCRD(crd, "sprockets")
}

// applySprocket applies content (metadata beyond the name, spec, status)
// to the Sprocket name as manager, on the main resource or sub.
func (e *env) applySprocket(name, manager string, content map[string]any, force bool, sub ...string) (*unstructured.Unstructured, error) {
	e.Helper()
	req := e.sprockets()
	body := map[string]any{"apiVersion": widgetGroup + "/v1", "kind": "Sprocket", "metadata": map[string]any{"name": name}}
	for k, v := range content {
		if k == "metadata" {
			for mk, mv := range v.(map[string]any) {
				body["metadata"].(map[string]any)[mk] = mv
			}
			continue
		}
		body[k] = v
	}
	data, err := json.Marshal(body)
	must(e, err)
	r := req(http.MethodPatch).Name(name).SubResource(sub...).SetHeader("Content-Type", string(types.ApplyYAMLPatchType)).Param("fieldManager", manager)
	if force {
		r = r.Param("force", "true")
	}
	var u unstructured.Unstructured
	if err := r.Body(data).Do(e.ctx).Into(&u); err != nil {
		return nil, err
	}
	return &u, nil
}

// fieldsOf decodes the fieldsV1 of manager's entry (operation op).
func fieldsOf(e *env, m metav1.Object, manager string, op metav1.ManagedFieldsOperationType) map[string]any {
	e.Helper()
	for _, f := range m.GetManagedFields() {
		if f.Manager == manager && f.Operation == op && f.FieldsV1 != nil {
			var out map[string]any
			must(e, json.Unmarshal(f.FieldsV1.Raw, &out))
			return out
		}
	}
	e.Fatalf("no %s entry of %s in %v", op, manager, managers(m))
	return nil
}

// wantFields compares manager's fieldsV1 with want (JSON).
func wantFields(e *env, m metav1.Object, manager string, op metav1.ManagedFieldsOperationType, want string) {
	e.Helper()
	got := fieldsOf(e, m, manager, op)
	var w map[string]any
	must(e, json.Unmarshal([]byte(want), &w))
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		e.Fatalf("%s's fields:\n got %s\nwant %s", manager, g, want)
	}
}

// Two managers applying different entries of a list of type map each keep
// theirs: entries are told apart by all their keys (here the same port
// with two protocols), and each manager owns only its own entry.
func applyCustomMapList(e *env) {
	_, err := e.applySprocket("s", "alice", map[string]any{"spec": map[string]any{
		"ports": []any{map[string]any{"port": 53, "protocol": "TCP", "name": "dns-tcp"}},
	}}, false)
	must(e, err)
	u, err := e.applySprocket("s", "bob", map[string]any{"spec": map[string]any{
		"ports": []any{map[string]any{"port": 53, "protocol": "UDP", "name": "dns-udp"}},
	}}, false)
	must(e, err)
	ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
	if len(ports) != 2 {
		e.Fatalf("ports %v", ports)
	}
	wantFields(e, u, "bob", metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:ports":{"k:{\"port\":53,\"protocol\":\"UDP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}}}}`)
	// alice stops applying her entry: only hers goes.
	u, err = e.applySprocket("s", "alice", map[string]any{"spec": map[string]any{}}, false)
	must(e, err)
	ports, _, _ = unstructured.NestedSlice(u.Object, "spec", "ports")
	if len(ports) != 1 || ports[0].(map[string]any)["protocol"] != "UDP" {
		e.Fatalf("after alice dropped hers: %v", ports)
	}
}

// Two managers applying different items of a list of type set keep both;
// an item both apply is shared.
func applyCustomSetList(e *env) {
	_, err := e.applySprocket("s", "alice", map[string]any{"spec": map[string]any{"tags": []any{"a", "common"}}}, false)
	must(e, err)
	u, err := e.applySprocket("s", "bob", map[string]any{"spec": map[string]any{"tags": []any{"b", "common"}}}, false)
	must(e, err)
	tags, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "tags")
	slices.Sort(tags)
	if !slices.Equal(tags, []string{"a", "b", "common"}) {
		e.Fatalf("tags %v", tags)
	}
	wantFields(e, u, "bob", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:tags":{"v:\"b\"":{},"v:\"common\"":{}}}}`)
}

// A map of x-kubernetes-map-type atomic is one field: a second manager's
// apply of other keys conflicts, and forced, replaces the map whole; a
// granular map merges key by key.
func applyCustomAtomicMap(e *env) {
	_, err := e.applySprocket("s", "alice", map[string]any{"spec": map[string]any{
		"selector": map[string]any{"x": "1", "y": "2"}, "labels": map[string]any{"x": "1"},
	}}, false)
	must(e, err)
	bob := map[string]any{"spec": map[string]any{"selector": map[string]any{"z": "3"}, "labels": map[string]any{"z": "3"}}}
	_, err = e.applySprocket("s", "bob", bob, false)
	wantStatus(e, err, 409, metav1.StatusReasonConflict)
	u, err := e.applySprocket("s", "bob", bob, true)
	must(e, err)
	sel, _, _ := unstructured.NestedStringMap(u.Object, "spec", "selector")
	labels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "labels")
	if !reflect.DeepEqual(sel, map[string]string{"z": "3"}) || !reflect.DeepEqual(labels, map[string]string{"x": "1", "z": "3"}) {
		e.Fatalf("selector %v labels %v", sel, labels)
	}
	wantFields(e, u, "alice", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:labels":{"f:x":{}}}}`)
	wantFields(e, u, "bob", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:labels":{"f:z":{}},"f:selector":{}}}`)
}

// A custom resource's metadata merges by ObjectMeta's model: owner
// references keyed by uid (each an atomic struct), finalizers a set.
func applyCustomMetadataLists(e *env) {
	owner := func(name string) map[string]any {
		cm := e.configMap(name, nil, nil)
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": string(cm.UID)}
	}
	oa, ob := owner("owner-a"), owner("owner-b")
	_, err := e.applySprocket("s", "alice", map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{oa}, "finalizers": []any{"example.com/a"},
	}}, false)
	must(e, err)
	u, err := e.applySprocket("s", "bob", map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{ob}, "finalizers": []any{"example.com/b"},
	}}, false)
	must(e, err)
	// Let the namespace go when the test ends.
	defer func() {
		_ = e.c.Patch(types.MergePatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("sprockets").Name("s").
			Body([]byte(`{"metadata":{"finalizers":null}}`)).Do(e.ctx).Error()
	}()
	if refs := u.GetOwnerReferences(); len(refs) != 2 {
		e.Fatalf("ownerReferences %v", refs)
	}
	if fin := u.GetFinalizers(); len(fin) != 2 {
		e.Fatalf("finalizers %v", fin)
	}
	wantFields(e, u, "bob", metav1.ManagedFieldsOperationApply,
		`{"f:metadata":{"f:finalizers":{"v:\"example.com/b\"":{}},"f:ownerReferences":{"k:{\"uid\":\"`+ob["uid"].(string)+`\"}":{}}}}`)
}

// A Service's ports are keyed by port and protocol: two managers applying
// port 53 over TCP and over UDP each keep theirs.
func applyServicePorts(e *env) {
	apply := func(manager, name string, proto corev1.Protocol) (*corev1.Service, error) {
		// Raw JSON: a marshalled corev1.Service would carry targetPort 0.
		data, err := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "dns"},
			"spec": map[string]any{"ports": []any{map[string]any{"name": name, "port": 53, "protocol": proto}}},
		})
		must(e, err)
		var out corev1.Service
		err = e.c.Patch(types.ApplyYAMLPatchType).Namespace(e.ns).Resource("services").Name("dns").
			Param("fieldManager", manager).Body(data).Do(e.ctx).Into(&out)
		return &out, err
	}
	_, err := apply("alice", "dns-tcp", corev1.ProtocolTCP)
	must(e, err)
	svc, err := apply("bob", "dns-udp", corev1.ProtocolUDP)
	must(e, err)
	if len(svc.Spec.Ports) != 2 {
		e.Fatalf("ports %+v", svc.Spec.Ports)
	}
	wantFields(e, svc, "bob", metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:ports":{"k:{\"port\":53,\"protocol\":\"UDP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}}}}`)
}

// A container's ports are keyed by containerPort and protocol: two
// managers applying port 53 over TCP and over UDP each keep theirs.
func applyContainerPorts(e *env) {
	apply := func(manager, name, proto string) (*appsv1.Deployment, error) {
		// Raw JSON: a marshalled appsv1.Deployment would carry empty
		// resources and a creationTimestamp.
		data, err := json.Marshal(map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d"},
			"spec": map[string]any{
				"selector": map[string]any{"matchLabels": map[string]any{"app": "d"}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": "d"}},
					"spec": map[string]any{"containers": []any{map[string]any{
						"name": "app", "image": "registry.example/app:1",
						"ports": []any{map[string]any{"name": name, "containerPort": 53, "protocol": proto}},
					}}},
				},
			},
		})
		must(e, err)
		var out appsv1.Deployment
		err = e.c.Patch(types.ApplyYAMLPatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("d").
			Param("fieldManager", manager).Body(data).Do(e.ctx).Into(&out)
		return &out, err
	}
	_, err := apply("alice", "dns-tcp", "TCP")
	must(e, err)
	d, err := apply("bob", "dns-udp", "UDP")
	must(e, err)
	if ports := d.Spec.Template.Spec.Containers[0].Ports; len(ports) != 2 {
		e.Fatalf("ports %+v", ports)
	}
	got := fieldsOf(e, d, "bob", metav1.ManagedFieldsOperationApply)
	c, _, _ := unstructured.NestedMap(got, "f:spec", "f:template", "f:spec", "f:containers", `k:{"name":"app"}`, "f:ports")
	want := map[string]any{`k:{"containerPort":53,"protocol":"UDP"}`: map[string]any{".": map[string]any{}, "f:containerPort": map[string]any{}, "f:name": map[string]any{}, "f:protocol": map[string]any{}}}
	if !reflect.DeepEqual(c, want) {
		e.Fatalf("bob's container port fields %v", c)
	}
}

// Structs kube-apiserver's models mark atomic (an owner reference, a
// ConfigMap key selector) are owned as one field, with no field of theirs
// listed.
func applyAtomicStructFields(e *env) {
	owner := e.configMap("owner", nil, nil)
	// Raw JSON: a marshalled corev1.Pod would carry empty resources.
	data, err := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "ownerReferences": []any{
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner.UID},
		}},
		"spec": map[string]any{"containers": []any{map[string]any{
			"name": "c", "image": "registry.example/app:1",
			"env": []any{map[string]any{"name": "K", "valueFrom": map[string]any{"configMapKeyRef": map[string]any{"name": "owner", "key": "k"}}}},
		}}},
	})
	must(e, err)
	var out corev1.Pod
	must(e, e.c.Patch(types.ApplyYAMLPatchType).Namespace(e.ns).Resource("pods").Name("p").
		Param("fieldManager", "alice").Body(data).Do(e.ctx).Into(&out))
	wantFields(e, &out, "alice", metav1.ManagedFieldsOperationApply, `{
		"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"`+string(owner.UID)+`\"}":{}}},
		"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:env":{"k:{\"name\":\"K\"}":{".":{},"f:name":{},"f:valueFrom":{"f:configMapKeyRef":{}}}},"f:image":{},"f:name":{}}}}}`)
}

// Apply to a custom resource's status subresource merges by the status
// schema: two controllers each own their condition of a list keyed by
// type.
func applyCustomStatus(e *env) {
	_, err := e.applySprocket("s", "alice", map[string]any{"spec": map[string]any{"tags": []any{"a"}}}, false)
	must(e, err)
	cond := func(t string) map[string]any {
		return map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": t, "status": "True"}}}}
	}
	_, err = e.applySprocket("s", "ctrl-a", cond("Ready"), false, "status")
	must(e, err)
	u, err := e.applySprocket("s", "ctrl-b", cond("Synced"), false, "status")
	must(e, err)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	if len(conds) != 2 {
		e.Fatalf("conditions %v", conds)
	}
	tags, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "tags")
	if !slices.Equal(tags, []string{"a"}) {
		e.Fatalf("status apply changed spec: %v", u.Object["spec"])
	}
	wantFields(e, u, "ctrl-b", metav1.ManagedFieldsOperationApply,
		`{"f:status":{"f:conditions":{"k:{\"type\":\"Synced\"}":{".":{},"f:status":{},"f:type":{}}}}}`)
}

// A definition updated to make a list one of type set (it was atomic)
// merges the list as a set from then on: two managers applying different
// items keep both.
func applyAfterDefinitionUpdate(e *env) {
	tags := func(listType string) map[string]any {
		t := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		if listType != "" {
			t["x-kubernetes-list-type"] = listType
		}
		return map[string]any{"type": "object", "properties": map[string]any{
			"spec": map[string]any{"type": "object", "properties": map[string]any{"tags": t}},
		}}
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "cogs." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "cogs", "singular": "cog", "kind": "Cog", "listKind": "CogList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": tags("")},
			}},
		},
	}
	req := e.serveCRD(crd, "cogs")
	crdReq := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("cogs." + widgetGroup)
	}
	var def unstructured.Unstructured
	must(e, crdReq(http.MethodGet).Do(e.ctx).Into(&def))
	versions, _, _ := unstructured.NestedSlice(def.Object, "spec", "versions")
	v0 := versions[0].(map[string]any)
	if !equality.Semantic.DeepEqual(v0["schema"], map[string]any{"openAPIV3Schema": tags("set")}) {
		v0["schema"] = map[string]any{"openAPIV3Schema": tags("set")}
		must(e, unstructured.SetNestedSlice(def.Object, versions, "spec", "versions"))
		data, err := json.Marshal(def.Object)
		must(e, err)
		must(e, crdReq(http.MethodPut).Body(data).Do(e.ctx).Error())
	}
	apply := func(name, manager, tag string) (*unstructured.Unstructured, error) {
		data, err := json.Marshal(map[string]any{
			"apiVersion": widgetGroup + "/v1", "kind": "Cog", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"tags": []any{tag}},
		})
		must(e, err)
		var u unstructured.Unstructured
		err = req(http.MethodPatch).Name(name).SetHeader("Content-Type", string(types.ApplyYAMLPatchType)).Param("fieldManager", manager).
			Body(data).Do(e.ctx).Into(&u)
		return &u, err
	}
	// kube-apiserver takes the new schema shortly after the update.
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	i := 0
	err := kubegotest.Poll(ctx, func(context.Context) error {
		name := "c" + string(rune('a'+i%26))
		i++
		if _, err := apply(name, "alice", "a"); err != nil {
			return err
		}
		u, err := apply(name, "bob", "b")
		if err != nil {
			return err
		}
		if got, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "tags"); !slices.Equal(got, []string{"a", "b"}) {
			return fmt.Errorf("tags %v after two managers applied a and b", got)
		}
		return nil
	})
	if err != nil {
		e.Fatalf("the set list is still merged as atomic: %v", err)
	}
}

// The metadata of an embedded resource merges by ObjectMeta's model: two
// managers applying different finalizers keep both.
func applyEmbeddedMetadata(e *env) {
	template := func(finalizer string) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"finalizers": []any{finalizer}},
		}}}
	}
	_, err := e.applySprocket("s", "alice", template("example.com/a"), false)
	must(e, err)
	u, err := e.applySprocket("s", "bob", template("example.com/b"), false)
	must(e, err)
	fin, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "template", "metadata", "finalizers")
	if !slices.Equal(fin, []string{"example.com/a", "example.com/b"}) {
		e.Fatalf("finalizers %v", fin)
	}
}
