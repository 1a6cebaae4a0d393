package fake

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kubego/kubego/fake/internal/crdschema"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/scheme"
)

// Resource describes one custom resource the server serves, for Register and
// Options.Resources. Built-in kinds are served without registration.
type Resource struct {
	// Kind is the group/version/kind of the objects, e.g.
	// example.com/v1 Widget. Required.
	Kind schema.GroupVersionKind
	// Resource is the plural resource name, e.g. "widgets". Required.
	Resource string
	// Namespaced is true for namespaced resources, false for cluster-scoped.
	Namespaced bool
	// Status enables the status subresource: writes to the main resource
	// ignore .status, writes to /status ignore everything else.
	Status bool
	// Scale enables the scale subresource, mapped to .spec.replicas,
	// .status.replicas and .status.selector.
	Scale bool
	// ShortNames and Categories are advertised by discovery.
	ShortNames []string
	Categories []string
}

// resource is the server's view of one served resource.
type resource struct {
	gvr        schema.GroupVersionResource
	gvk        schema.GroupVersionKind
	namespaced bool
	status     bool
	scale      bool
	builtin    bool // typed in scheme.Default: protobuf and strategic merge
	generation bool // metadata.generation is tracked
	shortNames []string
	categories []string
	// schema is a custom resource version's structural schema (nil: none,
	// objects are stored as written).
	schema crdschema.Schema
	// rules are schema's CEL rules, compiled.
	rules *crdschema.Rules
	// storageVersion is the version a custom resource is stored in
	// ("": its own).
	storageVersion string
}

func (r *resource) listGVK() schema.GroupVersionKind {
	return r.gvk.GroupVersion().WithKind(r.gvk.Kind + "List")
}

// groupResource is what error messages name, e.g. deployments.apps.
func (r *resource) groupResource() schema.GroupResource { return r.gvr.GroupResource() }

// generationKinds are the built-in kinds whose registry strategy sets and
// bumps metadata.generation (kube-apiserver's pkg/registry/*/strategy.go).
var generationKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"ReplicationController": true, "Job": true, "CronJob": true, "Pod": true,
	"HorizontalPodAutoscaler": true, "PodDisruptionBudget": true, "Ingress": true,
	"NetworkPolicy": true, "ValidatingAdmissionPolicy": true, "MutatingAdmissionPolicy": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"CustomResourceDefinition": true, "APIService": true,
	"PodTemplate": true, "EndpointSlice": true, "PriorityClass": true, "IngressClass": true,
	"ValidatingAdmissionPolicyBinding": true, "MutatingAdmissionPolicyBinding": true,
	"FlowSchema": true, "PriorityLevelConfiguration": true, "ResourceSlice": true,
	"DeviceClass": true, "DeviceTaintRule": true,
}

// scaleKinds are the built-in kinds with a scale subresource.
var scaleKinds = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}:        true,
	{Group: "apps", Kind: "ReplicaSet"}:        true,
	{Group: "apps", Kind: "StatefulSet"}:       true,
	{Group: "", Kind: "ReplicationController"}: true,
}

// Verbs of the built-in resources that do not have them all.
var (
	verbsCreate = []string{"create"}
	verbsRead   = []string{"get", "list"}
	// verbsNoCollectionDelete are those of resources whose registry
	// cannot delete a collection.
	verbsNoCollectionDelete = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
)

// builtinVerbs are the verbs kube-apiserver serves for the built-in
// resources that do not have them all (any version); others have
// verbsMain. A request with another verb is 405.
var builtinVerbs = map[schema.GroupResource][]string{
	{Resource: "namespaces"}:        verbsNoCollectionDelete,
	{Resource: "componentstatuses"}: verbsRead,
}

// verbs returns the verbs discovery lists for res, and the only ones its
// main resource answers.
func (r *resource) verbs() []string {
	gr := r.gvr.GroupResource()
	if reviews[gr] != nil || isBindings(r) {
		return verbsCreate
	}
	if v, ok := builtinVerbs[gr]; ok && r.builtin {
		return v
	}
	return verbsMain
}

// registry is the set of served resources. It is built at construction and
// grows only through Register, under the server's lock.
type registry struct {
	byGVR map[schema.GroupVersionResource]*resource
	byGVK map[schema.GroupVersionKind]*resource
	// events are the views of the one Event storage, core/v1 first.
	events []*resource
}

// newRegistry serves the built-in kinds: all their versions, or (all
// false) only the GA ones, as kube-apiserver by default. No built-in
// alpha or beta version is enabled by default since Kubernetes 1.24, and
// every GA version of k8s.io/api is served.
func newRegistry(all bool) *registry {
	r := &registry{byGVR: map[schema.GroupVersionResource]*resource{}, byGVK: map[schema.GroupVersionKind]*resource{}}
	s := scheme.Default()
	for m := range client.BuiltinKinds {
		if !all && prerelease(m.Kind.Version) {
			continue
		}
		t, ok := s.AllKnownTypes()[m.Kind]
		if !ok {
			continue
		}
		st := t
		_, hasStatus := st.FieldByName("Status")
		if f, ok := st.FieldByName("Status"); ok && f.Type.Kind() != reflect.Struct {
			hasStatus = false
		}
		r.add(&resource{
			gvr:        m.Resource,
			gvk:        m.Kind,
			namespaced: m.Namespaced,
			status:     hasStatus && reviews[m.Resource.GroupResource()] == nil,
			scale:      scaleKinds[m.Kind.GroupKind()],
			builtin:    true,
			generation: generationKinds[m.Kind.Kind],
			shortNames: builtinShortNames[m.Resource.Resource],
			categories: builtinCategories[m.Resource.GroupResource()],
		})
	}
	r.add(crdResource())
	r.add(apiServiceResource())
	r.add(bindingResource())
	return r
}

// prerelease reports whether an API version is alpha or beta.
func prerelease(version string) bool {
	return strings.Contains(version, "alpha") || strings.Contains(version, "beta")
}

func (r *registry) add(res *resource) {
	r.byGVR[res.gvr] = res
	r.byGVK[res.gvk] = res
	if isEvent(res) {
		r.events = append(r.events, res)
		slices.SortFunc(r.events, func(a, b *resource) int {
			if a.gvk.Group != b.gvk.Group {
				return strings.Compare(a.gvk.Group, b.gvk.Group)
			}
			return strings.Compare(a.gvk.Version, b.gvk.Version)
		})
	}
}

// groups returns the served group/versions, sorted with the legacy core
// group first, then by group and version.
func (r *registry) groupVersions() []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for gvr := range r.byGVR {
		gv := gvr.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return versionLess(out[i].Version, out[j].Version)
	})
	return out
}

// versionLess orders versions by Kubernetes priority: GA before beta before
// alpha, higher numbers first.
func versionLess(a, b string) bool {
	ka, kb := versionKey(a), versionKey(b)
	if ka != kb {
		return ka > kb
	}
	return a < b
}

func versionKey(v string) int {
	major, rest := 0, strings.TrimPrefix(v, "v")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		major = major*10 + int(rest[i]-'0')
		i++
	}
	stage, minor := 3, 0
	switch {
	case strings.HasPrefix(rest[i:], "beta"):
		stage = 2
		minor = atoiPrefix(rest[i+4:])
	case strings.HasPrefix(rest[i:], "alpha"):
		stage = 1
		minor = atoiPrefix(rest[i+5:])
	}
	return stage*1_000_000 + major*1000 + minor
}

func atoiPrefix(s string) int {
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// builtinShortNames are the short names kube-apiserver advertises.
var builtinShortNames = map[string][]string{
	"pods": {"po"}, "services": {"svc"}, "namespaces": {"ns"}, "nodes": {"no"},
	"configmaps": {"cm"}, "deployments": {"deploy"}, "replicasets": {"rs"},
	"daemonsets": {"ds"}, "statefulsets": {"sts"}, "persistentvolumeclaims": {"pvc"},
	"persistentvolumes": {"pv"}, "serviceaccounts": {"sa"}, "events": {"ev"},
	"endpoints": {"ep"}, "replicationcontrollers": {"rc"}, "cronjobs": {"cj"},
	"horizontalpodautoscalers": {"hpa"}, "ingresses": {"ing"}, "networkpolicies": {"netpol"},
	"poddisruptionbudgets": {"pdb"}, "limitranges": {"limits"}, "resourcequotas": {"quota"},
	"customresourcedefinitions": {"crd", "crds"}, "storageclasses": {"sc"},
	"priorityclasses": {"pc"}, "certificatesigningrequests": {"csr"},
	"componentstatuses": {"cs"}, "ipaddresses": {"ip"}, "volumeattributesclasses": {"vac"},
}

// builtinCategories are the categories kube-apiserver advertises: "all"
// (kubectl get all) and "api-extensions".
var builtinCategories = map[schema.GroupResource][]string{
	{Resource: "pods"}:                                                                     {"all"},
	{Resource: "replicationcontrollers"}:                                                   {"all"},
	{Resource: "services"}:                                                                 {"all"},
	{Group: "apps", Resource: "daemonsets"}:                                                {"all"},
	{Group: "apps", Resource: "deployments"}:                                               {"all"},
	{Group: "apps", Resource: "replicasets"}:                                               {"all"},
	{Group: "apps", Resource: "statefulsets"}:                                              {"all"},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                           {"all"},
	{Group: "batch", Resource: "cronjobs"}:                                                 {"all"},
	{Group: "batch", Resource: "jobs"}:                                                     {"all"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     {"api-extensions"},
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   {"api-extensions"},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       {"api-extensions"},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: {"api-extensions"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         {"api-extensions"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   {"api-extensions"},
}

// newTyped returns a new typed object of a built-in kind, or nil.
func newTyped(gvk schema.GroupVersionKind) runtime.Object {
	obj, err := scheme.Default().New(gvk)
	if err != nil {
		return nil
	}
	return obj
}
