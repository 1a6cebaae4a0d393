package fake_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/rest"
)

// fidelityCases are behaviours of kube-apiserver that tests (and kubectl)
// depend on without noticing: the approval rule of protected API groups,
// the one storage behind both Event APIs, which versions, verbs and
// subresources are served, and server-side apply to status.
func fidelityCases() []conformanceCase {
	return []conformanceCase{
		{"ProtectedGroupCRDNeedsApprovalAnnotation", protectedGroupCRDNeedsApproval},
		{"EventsAreOneStorageInBothGroups", eventsAreOneStorage},
		{"NamespaceDeleteCollectionIsMethodNotAllowed", namespaceDeleteCollectionNotAllowed},
		{"SendInitialEventsWithoutBookmarksHasNoEndMarker", sendInitialEventsWithoutBookmarks},
		{"PartialObjectMetadataListV1beta1", partialObjectMetadataListV1beta1},
		{"SelfReviewsAreAnsweredNotStored", selfReviewsAnswered},
		{"DiscoveryVerbsShortNamesAndCategories", discoveryVerbsShortNamesAndCategories},
		{"OnlyGAVersionsOfBuiltinGroupsAreServed", onlyGAVersionsServed},
		{"NamespaceFinalizersChangeOnlyThroughFinalize", namespaceFinalize},
		{"EphemeralContainersSubresourceWritesOnlyThem", ephemeralContainers},
		{"ResizeSubresourceWritesOnlyContainerResources", podResize},
		{"CSRApprovalSubresourceWritesOnlyConditions", csrApproval},
		{"ServiceAccountTokenIsIssued", serviceAccountToken},
		{"StatusApplyKeepsOwnershipBuiltin", statusApplyKeepsOwnershipBuiltin},
		{"StatusApplyKeepsOwnershipCustom", statusApplyKeepsOwnershipCustom},
	}
}

// SelfSubjectAccessReview and SelfSubjectReview (kubectl auth can-i,
// kubectl auth whoami) are answered with a status and not stored. The
// test clients are administrators on both servers.
func selfReviewsAnswered(e *env) {
	var ssar authorizationv1.SelfSubjectAccessReview
	must(e, e.c.Post().Group("authorization.k8s.io").Version("v1").Resource("selfsubjectaccessreviews").
		Body(&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: e.ns, Verb: "delete", Resource: "configmaps"},
		}}).Do(e.ctx).Into(&ssar))
	if !ssar.Status.Allowed || ssar.Spec.ResourceAttributes == nil || ssar.Spec.ResourceAttributes.Verb != "delete" {
		e.Fatalf("SelfSubjectAccessReview answered %+v", ssar)
	}
	var ssr authenticationv1.SelfSubjectReview
	must(e, e.c.Post().Group("authentication.k8s.io").Version("v1").Resource("selfsubjectreviews").
		Body(&authenticationv1.SelfSubjectReview{}).Do(e.ctx).Into(&ssr))
	if ssr.Status.UserInfo.Username == "" || !slices.Contains(ssr.Status.UserInfo.Groups, "system:authenticated") ||
		!slices.Contains(ssr.Status.UserInfo.Groups, "system:masters") {
		e.Fatalf("SelfSubjectReview answered %+v", ssr.Status.UserInfo)
	}
	err := e.c.Get().Group("authorization.k8s.io").Version("v1").Resource("selfsubjectaccessreviews").Do(e.ctx).Error()
	wantStatus(e, err, 405, metav1.StatusReasonMethodNotAllowed)
	var rl metav1.APIResourceList
	must(e, e.c.Get().AbsPath("/apis/authorization.k8s.io/v1").Do(e.ctx).Into(&rl))
	i := slices.IndexFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == "selfsubjectaccessreviews" })
	if i < 0 || !slices.Equal(rl.APIResources[i].Verbs, []string{"create"}) {
		e.Fatalf("discovery of authorization.k8s.io/v1: %+v", rl.APIResources)
	}
}

// Discovery gives built-in resources kube-apiserver's verbs, short names
// and categories (kubectl get all, kubectl get cs).
func discoveryVerbsShortNamesAndCategories(e *env) {
	find := func(gv, name string) metav1.APIResource {
		e.Helper()
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		var rl metav1.APIResourceList
		must(e, e.c.Get().AbsPath(path).Do(e.ctx).Into(&rl))
		i := slices.IndexFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == name })
		if i < 0 {
			e.Fatalf("%s not in %s", name, path)
		}
		return rl.APIResources[i]
	}
	for _, c := range []struct {
		gv, name   string
		verbs      []string // nil: not checked
		shortNames []string
		categories []string
	}{
		{gv: "v1", name: "pods", shortNames: []string{"po"}, categories: []string{"all"}},
		{gv: "v1", name: "services", shortNames: []string{"svc"}, categories: []string{"all"}},
		{gv: "v1", name: "configmaps", shortNames: []string{"cm"}},
		{gv: "v1", name: "componentstatuses", verbs: []string{"get", "list"}, shortNames: []string{"cs"}},
		{gv: "apps/v1", name: "deployments", shortNames: []string{"deploy"}, categories: []string{"all"}},
		{gv: "apps/v1", name: "replicasets", shortNames: []string{"rs"}, categories: []string{"all"}},
		{gv: "batch/v1", name: "jobs", categories: []string{"all"}},
		{gv: "networking.k8s.io/v1", name: "ipaddresses", shortNames: []string{"ip"}},
		{gv: "storage.k8s.io/v1", name: "volumeattributesclasses", shortNames: []string{"vac"}},
		{gv: "apiextensions.k8s.io/v1", name: "customresourcedefinitions", shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"}},
		{gv: "authentication.k8s.io/v1", name: "tokenreviews", verbs: []string{"create"}},
		{gv: "authorization.k8s.io/v1", name: "subjectaccessreviews", verbs: []string{"create"}},
	} {
		r := find(c.gv, c.name)
		if (c.verbs != nil && !slices.Equal(r.Verbs, c.verbs)) || !slices.Equal(r.ShortNames, c.shortNames) || !slices.Equal(r.Categories, c.categories) {
			e.Errorf("%s %s: verbs %v, short names %v, categories %v; want %v, %v, %v", c.gv, c.name, r.Verbs, r.ShortNames, r.Categories, c.verbs, c.shortNames, c.categories)
		}
	}
}

// A default kube-apiserver serves no alpha or beta version of its
// built-in groups, and none of the versions it removed.
func onlyGAVersionsServed(e *env) {
	var groups metav1.APIGroupList
	must(e, e.c.Get().AbsPath("/apis").Do(e.ctx).Into(&groups))
	want := map[string][]string{
		"apps": {"v1"}, "batch": {"v1"}, "policy": {"v1"}, "events.k8s.io": {"v1"}, "autoscaling": {"v1", "v2"},
		"networking.k8s.io": {"v1"}, "storage.k8s.io": {"v1"}, "flowcontrol.apiserver.k8s.io": {"v1"},
		"resource.k8s.io": {"v1"}, "admissionregistration.k8s.io": {"v1"}, "certificates.k8s.io": {"v1"},
	}
	for _, g := range groups.Groups {
		w, ok := want[g.Name]
		if !ok {
			continue
		}
		delete(want, g.Name)
		var got []string
		for _, v := range g.Versions {
			got = append(got, v.Version)
		}
		slices.Sort(got)
		if !slices.Equal(got, w) {
			e.Errorf("group %s serves %v, want %v", g.Name, got, w)
		}
	}
	if len(want) > 0 {
		e.Errorf("groups not served: %v", want)
	}
	for _, gv := range []string{"extensions/v1beta1", "policy/v1beta1", "batch/v1beta1", "events.k8s.io/v1beta1", "apps/v1beta2"} {
		err := e.c.Get().AbsPath("/apis/" + gv).Do(e.ctx).Error()
		wantStatus(e, err, 404, metav1.StatusReasonNotFound)
	}
	err := e.c.Get().AbsPath("/apis/batch/v1beta1/namespaces/" + e.ns + "/cronjobs").Do(e.ctx).Error()
	wantStatus(e, err, 404, metav1.StatusReasonNotFound)
}

// subresourceVerbs returns the verbs discovery lists for resource/sub in
// group/version gv.
func (e *env) subresourceVerbs(path, name string) []string {
	e.Helper()
	var rl metav1.APIResourceList
	must(e, e.c.Get().AbsPath(path).Do(e.ctx).Into(&rl))
	i := slices.IndexFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == name })
	if i < 0 {
		e.Fatalf("%s not in %s", name, path)
	}
	return rl.APIResources[i].Verbs
}

// A namespace's spec.finalizers change only through namespaces/finalize
// (an update), which changes everything but the status.
func namespaceFinalize(e *env) {
	if v := e.subresourceVerbs("/api/v1", "namespaces/finalize"); !slices.Equal(v, []string{"update"}) {
		e.Fatalf("namespaces/finalize verbs %v, want [update]", v)
	}
	name := e.ns + "-fin"
	var ns corev1.Namespace
	must(e, e.c.Post().Resource("namespaces").Body(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}).Do(e.ctx).Into(&ns))
	e.Cleanup(func() { _ = e.c.Delete().Resource("namespaces").Name(name).Do(context.Background()).Error() })
	if !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) {
		e.Fatalf("new namespace finalizers %v", ns.Spec.Finalizers)
	}
	ns.Spec.Finalizers = nil
	ns.Labels = map[string]string{"main": "yes"}
	must(e, e.c.Put().Resource("namespaces").Name(name).Body(&ns).Do(e.ctx).Into(&ns))
	if len(ns.Spec.Finalizers) != 1 || ns.Labels["main"] != "yes" {
		e.Fatalf("after an update of the namespace: finalizers %v, labels %v; want [kubernetes] and main=yes", ns.Spec.Finalizers, ns.Labels)
	}
	ns.Spec.Finalizers = nil
	ns.Labels["finalize"] = "yes"
	must(e, e.c.Put().Resource("namespaces").Name(name).SubResource("finalize").Body(&ns).Do(e.ctx).Into(&ns))
	if len(ns.Spec.Finalizers) != 0 || ns.Labels["finalize"] != "yes" {
		e.Fatalf("after finalize: finalizers %v, labels %v; want none and finalize=yes", ns.Spec.Finalizers, ns.Labels)
	}
	err := e.c.Get().Resource("namespaces").Name(name).SubResource("finalize").Do(e.ctx).Error()
	wantStatus(e, err, 405, metav1.StatusReasonMethodNotAllowed)
}

// pods/ephemeralcontainers changes a pod's ephemeral containers and
// nothing else.
func ephemeralContainers(e *env) {
	if v := e.subresourceVerbs("/api/v1", "pods/ephemeralcontainers"); !slices.Equal(v, []string{"get", "patch", "update"}) {
		e.Fatalf("pods/ephemeralcontainers verbs %v", v)
	}
	must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod("p", corev1.RestartPolicyNever)).Do(e.ctx).Error())
	patch := `{"metadata":{"labels":{"sneaky":"yes"}},"spec":{"activeDeadlineSeconds":5,"ephemeralContainers":[{"name":"debug","image":"registry.example/debug:1","targetContainerName":"c"}]}}`
	var pod corev1.Pod
	must(e, e.c.Patch(types.MergePatchType).Namespace(e.ns).Resource("pods").Name("p").SubResource("ephemeralcontainers").
		Body([]byte(patch)).Do(e.ctx).Into(&pod))
	if len(pod.Spec.EphemeralContainers) != 1 || pod.Spec.EphemeralContainers[0].Name != "debug" {
		e.Fatalf("ephemeral containers %+v", pod.Spec.EphemeralContainers)
	}
	if pod.Labels["sneaky"] != "" || pod.Spec.ActiveDeadlineSeconds != nil {
		e.Fatalf("pods/ephemeralcontainers changed more: labels %v, activeDeadlineSeconds %v", pod.Labels, pod.Spec.ActiveDeadlineSeconds)
	}
}

// pods/resize changes the resources and resize policy of a pod's
// containers and nothing else.
func podResize(e *env) {
	if v := e.subresourceVerbs("/api/v1", "pods/resize"); !slices.Equal(v, []string{"get", "patch", "update"}) {
		e.Fatalf("pods/resize verbs %v", v)
	}
	pod := newPod("p", corev1.RestartPolicyNever)
	pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(pod).Do(e.ctx).Error())
	patch := `{"metadata":{"labels":{"sneaky":"yes"}},"spec":{"activeDeadlineSeconds":5,"containers":[{"name":"c","image":"registry.example/other:2","resources":{"requests":{"cpu":"200m"}}}]}}`
	var got corev1.Pod
	must(e, e.c.Patch(types.StrategicMergePatchType).Namespace(e.ns).Resource("pods").Name("p").SubResource("resize").
		Body([]byte(patch)).Do(e.ctx).Into(&got))
	c := got.Spec.Containers[0]
	if cpu := c.Resources.Requests[corev1.ResourceCPU]; cpu.String() != "200m" {
		e.Errorf("cpu request after resize %s, want 200m", cpu.String())
	}
	if c.Image != pod.Spec.Containers[0].Image || got.Labels["sneaky"] != "" || got.Spec.ActiveDeadlineSeconds != nil {
		e.Errorf("pods/resize changed more: image %s, labels %v, activeDeadlineSeconds %v", c.Image, got.Labels, got.Spec.ActiveDeadlineSeconds)
	}
}

// certificatesigningrequests/approval changes the conditions and the
// metadata, not the spec.
func csrApproval(e *env) {
	if v := e.subresourceVerbs("/apis/certificates.k8s.io/v1", "certificatesigningrequests/approval"); !slices.Equal(v, []string{"get", "patch", "update"}) {
		e.Fatalf("certificatesigningrequests/approval verbs %v", v)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(e, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "conformance"}}, key)
	must(e, err)
	name := e.ns + "-csr"
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: "conformance.kubego.dev/signer",
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature},
		},
	}
	csrs := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group("certificates.k8s.io").Version("v1").Resource("certificatesigningrequests")
	}
	must(e, csrs("POST").Body(csr).Do(e.ctx).Into(csr))
	e.Cleanup(func() { _ = csrs("DELETE").Name(name).Do(context.Background()).Error() })
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Conformance", Message: "approved by the test",
	}}
	csr.Spec.Usages = append(csr.Spec.Usages, certificatesv1.UsageKeyEncipherment)
	csr.Labels = map[string]string{"approved": "yes"}
	must(e, csrs("PUT").Name(name).SubResource("approval").Body(csr).Do(e.ctx).Into(csr))
	if len(csr.Status.Conditions) != 1 || csr.Status.Conditions[0].Type != certificatesv1.CertificateApproved {
		e.Fatalf("conditions %+v", csr.Status.Conditions)
	}
	if len(csr.Spec.Usages) != 1 || csr.Labels["approved"] != "yes" {
		e.Fatalf("after approval: usages %v, labels %v; want the spec kept and the label written", csr.Spec.Usages, csr.Labels)
	}
}

// serviceaccounts/token issues a token for the service account (kubectl
// create token) and stores nothing.
func serviceAccountToken(e *env) {
	if v := e.subresourceVerbs("/api/v1", "serviceaccounts/token"); !slices.Equal(v, []string{"create"}) {
		e.Fatalf("serviceaccounts/token verbs %v", v)
	}
	must(e, e.c.Post().Namespace(e.ns).Resource("serviceaccounts").Body(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}).Do(e.ctx).Error())
	token := func(secs int64) (*authenticationv1.TokenRequest, error) {
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"conformance"}, ExpirationSeconds: &secs}}
		err := e.c.Post().Namespace(e.ns).Resource("serviceaccounts").Name("robot").SubResource("token").Body(tr).Do(e.ctx).Into(tr)
		return tr, err
	}
	tr, err := token(3600)
	must(e, err)
	left := time.Until(tr.Status.ExpirationTimestamp.Time)
	if tr.Status.Token == "" || left < 50*time.Minute || left > 70*time.Minute || !slices.Equal(tr.Spec.Audiences, []string{"conformance"}) {
		e.Fatalf("token request answered %+v (expires in %s)", tr, left)
	}
	_, err = token(60)
	wantStatus(e, err, 422, metav1.StatusReasonInvalid)
	err = e.c.Post().Namespace(e.ns).Resource("serviceaccounts").Name("nobody").SubResource("token").
		Body(&authenticationv1.TokenRequest{}).Do(e.ctx).Error()
	wantStatus(e, err, 404, metav1.StatusReasonNotFound)
}

// statusApplyKeepsOwnership checks server-side apply to a status
// subresource through apply, which sends an apply configuration of the
// status as manager: the applier owns the fields it sent (a managedFields
// entry with subresource status), another manager's apply of one of them
// conflicts, and a field the applier stops sending is removed.
func statusApplyKeepsOwnership(e *env, apply func(manager, status string) (map[string]any, error), first, conflicting, second, removed string) {
	e.Helper()
	out, err := apply("alice", first)
	must(e, err)
	owned := false
	for _, f := range out["metadata"].(map[string]any)["managedFields"].([]any) {
		m := f.(map[string]any)
		if m["manager"] == "alice" && m["operation"] == "Apply" && m["subresource"] == "status" {
			owned = true
		}
	}
	if !owned {
		e.Fatalf("no status Apply entry of alice in %v", out["metadata"].(map[string]any)["managedFields"])
	}
	_, err = apply("bob", conflicting)
	wantStatus(e, err, 409, metav1.StatusReasonConflict)
	out, err = apply("alice", second)
	must(e, err)
	st, _ := out["status"].(map[string]any)
	if _, ok := st[removed]; ok {
		e.Fatalf("status.%s kept after alice stopped applying it: %v", removed, st)
	}
}

func applyStatus(e *env, r *rest.Request, body string) (map[string]any, error) {
	raw, err := r.SubResource("status").Body([]byte(body)).Do(e.ctx).Raw()
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func statusApplyKeepsOwnershipBuiltin(e *env) {
	e.deployment("d", 1)
	apply := func(manager, status string) (map[string]any, error) {
		r := e.c.Patch(types.ApplyYAMLPatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("d").
			Param("fieldManager", manager).Accept("application/json")
		return applyStatus(e, r, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"status":`+status+`}`)
	}
	cond := `"conditions":[{"type":"Available","status":"True","reason":"Test","message":"applied"}]`
	statusApplyKeepsOwnership(e, apply,
		`{"observedGeneration":1,`+cond+`}`, `{"observedGeneration":2}`, `{`+cond+`}`, "observedGeneration")
}

func statusApplyKeepsOwnershipCustom(e *env) {
	widgets := e.widgets()
	must(e, widgets("POST").Body(widget("w", map[string]any{"size": 1})).Do(e.ctx).Error())
	apply := func(manager, status string) (map[string]any, error) {
		r := e.c.Patch(types.ApplyYAMLPatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("widgets").Name("w").
			Param("fieldManager", manager).Accept("application/json")
		return applyStatus(e, r, `{"apiVersion":"`+widgetGroup+`/v1","kind":"Widget","metadata":{"name":"w"},"status":`+status+`}`)
	}
	statusApplyKeepsOwnership(e, apply, `{"phase":"ready","count":1}`, `{"phase":"other"}`, `{"count":1}`, "phase")
}

// Namespaces cannot be deleted as a collection (405), and discovery does
// not offer it.
func namespaceDeleteCollectionNotAllowed(e *env) {
	err := e.c.Delete().Resource("namespaces").Param("labelSelector", "conformance.kubego.dev/none=true").Do(e.ctx).Error()
	wantStatus(e, err, 405, metav1.StatusReasonMethodNotAllowed)
	var rl metav1.APIResourceList
	must(e, e.c.Get().AbsPath("/api/v1").Do(e.ctx).Into(&rl))
	i := slices.IndexFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == "namespaces" })
	if i < 0 || slices.Contains(rl.APIResources[i].Verbs, "deletecollection") || !slices.Contains(rl.APIResources[i].Verbs, "delete") {
		e.Fatalf("discovery of namespaces: %+v", rl.APIResources)
	}
	// Other collections can be deleted.
	must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "conformance.kubego.dev/none=true").Do(e.ctx).Error())
}

// sendInitialEvents needs no allowWatchBookmarks: the initial events come
// without a bookmark marking their end.
func sendInitialEventsWithoutBookmarks(e *env) {
	e.configMap("a", nil, nil)
	e.configMap("b", nil, nil)
	w := e.watchCM(map[string]string{"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"})
	var names []string
	for range 2 {
		ev := next(e, w)
		if ev.Type != watch.Added {
			e.Fatalf("initial event %s, want ADDED", ev.Type)
		}
		names = append(names, nameOf(ev.Object))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"a", "b"}) {
		e.Fatalf("initial names %v", names)
	}
	e.configMap("c", nil, nil)
	if ev := next(e, w); ev.Type != watch.Added || nameOf(ev.Object) != "c" {
		e.Fatalf("after the initial events: %s %s, want ADDED c (and no bookmark)", ev.Type, nameOf(ev.Object))
	}
}

// Metadata-only lists are served in meta.k8s.io/v1beta1 too.
func partialObjectMetadataListV1beta1(e *env) {
	e.configMap("a", map[string]string{"k": "v"}, nil)
	raw, err := e.c.Get().Namespace(e.ns).Resource("configmaps").
		Accept("application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io").Do(e.ctx).Raw()
	must(e, err)
	var list struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []map[string]any `json:"items"`
	}
	must(e, json.Unmarshal(raw, &list))
	if list.APIVersion != "meta.k8s.io/v1beta1" || list.Kind != "PartialObjectMetadataList" || len(list.Items) != 1 {
		e.Fatalf("got %s %s with %d items, want a meta.k8s.io/v1beta1 PartialObjectMetadataList of 1", list.APIVersion, list.Kind, len(list.Items))
	}
	it := list.Items[0]
	md, _ := it["metadata"].(map[string]any)
	if it["apiVersion"] != "meta.k8s.io/v1beta1" || it["kind"] != "PartialObjectMetadata" || md["name"] != "a" || it["data"] != nil {
		e.Fatalf("item %v", it)
	}
}

// gadgetCRD is a minimal valid definition of gadgets in group, with the
// approval annotation when approval is not empty.
func gadgetCRD(group, approval string) map[string]any {
	md := map[string]any{"name": "gadgets." + group}
	if approval != "" {
		md["annotations"] = map[string]any{"api-approved.kubernetes.io": approval}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": md,
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
}

func (e *env) crds(verb string) *rest.Request {
	return e.c.Verb(verb).Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions")
}

// createCRD creates def, deleting it when the test ends.
func (e *env) createCRD(def map[string]any) (map[string]any, error) {
	body, err := json.Marshal(def)
	if err != nil {
		e.Fatal(err)
	}
	raw, err := e.crds("POST").Body(body).Accept("application/json").Do(e.ctx).Raw()
	if err != nil {
		return nil, err
	}
	name := def["metadata"].(map[string]any)["name"].(string)
	e.Cleanup(func() { _ = e.crds("DELETE").Name(name).Do(context.Background()).Error() })
	var out map[string]any
	must(e, json.Unmarshal(raw, &out))
	return out, nil
}

// Groups k8s.io and kubernetes.io and their subdomains belong to the
// Kubernetes project: a definition in one needs the annotation
// api-approved.kubernetes.io set to a URL or to a reason starting with
// "unapproved" (422 otherwise, on create and on an update that changes
// it); other groups do not.
func protectedGroupCRDNeedsApproval(e *env) {
	wantCause := func(err error, typ metav1.CauseType) {
		e.Helper()
		se := wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		if se.ErrStatus.Details == nil || !slices.ContainsFunc(se.ErrStatus.Details.Causes, func(c metav1.StatusCause) bool {
			return c.Type == typ && c.Field == "metadata.annotations[api-approved.kubernetes.io]"
		}) {
			e.Fatalf("causes %+v, want %s of metadata.annotations[api-approved.kubernetes.io]", se.ErrStatus.Details, typ)
		}
	}
	_, err := e.createCRD(gadgetCRD(e.ns+".k8s.io", ""))
	wantCause(err, metav1.CauseTypeFieldValueRequired)
	_, err = e.createCRD(gadgetCRD(e.ns+".kubernetes.io", "approved by me"))
	wantCause(err, metav1.CauseTypeFieldValueInvalid)
	_, err = e.createCRD(gadgetCRD("k8s.io", "kubernetes.io/pull/1"))
	wantCause(err, metav1.CauseTypeFieldValueInvalid)

	for _, ok := range []map[string]any{
		gadgetCRD(e.ns+"-url.k8s.io", "https://github.com/kubernetes/enhancements/pull/1111"),
		gadgetCRD(e.ns+"-other.example.com", ""),
		gadgetCRD(e.ns+"k8s.io", ""), // not a subdomain of k8s.io
	} {
		if _, err := e.createCRD(ok); err != nil {
			e.Fatalf("%s: %v", ok["metadata"].(map[string]any)["name"], err)
		}
	}
	stored, err := e.createCRD(gadgetCRD(e.ns+"-exp.k8s.io", "unapproved, experimental"))
	must(e, err)

	// An update keeping the approval state passes; one breaking it does not.
	name := stored["metadata"].(map[string]any)["name"].(string)
	patch := func(body string) error {
		return e.c.Patch(types.MergePatchType).Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").
			Name(name).Body([]byte(body)).Do(e.ctx).Error()
	}
	must(e, patch(`{"metadata":{"labels":{"touched":"yes"}}}`))
	wantCause(patch(`{"metadata":{"annotations":{"api-approved.kubernetes.io":"maybe"}}}`), metav1.CauseTypeFieldValueInvalid)
}

// An Event written through core/v1 is read, listed and watched through
// events.k8s.io/v1 and the other way round: one object (same uid and
// resourceVersion), its fields under each group's names.
func eventsAreOneStorage(e *env) {
	core := func(verb string) *rest.Request { return e.c.Verb(verb).Namespace(e.ns).Resource("events") }
	events := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group("events.k8s.io").Version("v1").Namespace(e.ns).Resource("events")
	}
	w, err := events("GET").Watch(e.ctx, func() runtime.Object { return &eventsv1.Event{} })
	must(e, err)
	e.Cleanup(w.Stop)
	regarding := corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: e.ns, Name: "cm"}

	ts := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	var legacy corev1.Event
	must(e, core("POST").Body(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "legacy"},
		InvolvedObject: regarding, Reason: "Tested", Message: "through core/v1", Type: corev1.EventTypeNormal,
		Source: corev1.EventSource{Component: "conformance"}, Count: 3, FirstTimestamp: ts, LastTimestamp: ts,
	}).Do(e.ctx).Into(&legacy))
	var asNew eventsv1.Event
	must(e, events("GET").Name("legacy").Do(e.ctx).Into(&asNew))
	if asNew.UID != legacy.UID || asNew.ResourceVersion != legacy.ResourceVersion || asNew.Regarding != regarding ||
		asNew.Note != "through core/v1" || asNew.Reason != "Tested" || asNew.Type != "Normal" || asNew.DeprecatedCount != 3 ||
		asNew.DeprecatedSource.Component != "conformance" || !asNew.DeprecatedFirstTimestamp.Equal(&ts) {
		e.Fatalf("core/v1 Event read through events.k8s.io/v1: %+v", asNew)
	}
	ev := nextNonBookmark(e, w)
	if got, ok := ev.Object.(*eventsv1.Event); ev.Type != watch.Added || !ok || got.Name != "legacy" || got.Note != "through core/v1" {
		e.Fatalf("events.k8s.io/v1 watch: %s %#v", ev.Type, ev.Object)
	}

	now := metav1.NewMicroTime(time.Now().UTC().Truncate(time.Microsecond))
	var modern eventsv1.Event
	must(e, events("POST").Body(&eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "modern"}, EventTime: now,
		ReportingController: "conformance.kubego.dev/test", ReportingInstance: "test-1",
		Action: "Test", Reason: "Tested", Regarding: regarding, Note: "through events.k8s.io/v1", Type: "Warning",
	}).Do(e.ctx).Into(&modern))
	var asCore corev1.Event
	must(e, core("GET").Name("modern").Do(e.ctx).Into(&asCore))
	if asCore.UID != modern.UID || asCore.InvolvedObject != regarding || asCore.Message != "through events.k8s.io/v1" ||
		asCore.ReportingController != "conformance.kubego.dev/test" || asCore.ReportingInstance != "test-1" ||
		asCore.Action != "Test" || !asCore.EventTime.Equal(&now) {
		e.Fatalf("events.k8s.io/v1 Event read through core/v1: %+v", asCore)
	}

	// A series update through one group is seen through the other.
	series := fmt.Sprintf(`{"series":{"count":2,"lastObservedTime":%q}}`, now.Add(time.Second).Format(metav1.RFC3339Micro))
	must(e, e.c.Patch(types.MergePatchType).Group("events.k8s.io").Version("v1").Namespace(e.ns).Resource("events").
		Name("modern").Body([]byte(series)).Do(e.ctx).Into(&modern))
	must(e, core("GET").Name("modern").Do(e.ctx).Into(&asCore))
	if asCore.Series == nil || asCore.Series.Count != 2 || asCore.ResourceVersion != modern.ResourceVersion {
		e.Fatalf("series through core/v1: %+v at %s, want count 2 at %s", asCore.Series, asCore.ResourceVersion, modern.ResourceVersion)
	}

	// Both lists hold both; field selectors use each group's names.
	names := func(r *rest.Request, into runtime.Object) []string {
		e.Helper()
		must(e, r.Do(e.ctx).Into(into))
		var out []string
		switch l := into.(type) {
		case *corev1.EventList:
			for _, it := range l.Items {
				out = append(out, it.Name)
			}
		case *eventsv1.EventList:
			for _, it := range l.Items {
				out = append(out, it.Name)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		got  []string
		want []string
	}{
		{names(core("GET"), &corev1.EventList{}), []string{"legacy", "modern"}},
		{names(events("GET"), &eventsv1.EventList{}), []string{"legacy", "modern"}},
		{names(events("GET").Param("fieldSelector", "regarding.name=cm"), &eventsv1.EventList{}), []string{"legacy", "modern"}},
		{names(events("GET").Param("fieldSelector", "reportingController=conformance.kubego.dev/test"), &eventsv1.EventList{}), []string{"modern"}},
		{names(core("GET").Param("fieldSelector", "reportingComponent=conformance.kubego.dev/test"), &corev1.EventList{}), []string{"modern"}},
		{names(core("GET").Param("fieldSelector", "source=conformance.kubego.dev/test"), &corev1.EventList{}), []string{"modern"}},
		{names(core("GET").Param("fieldSelector", "source=conformance"), &corev1.EventList{}), []string{"legacy"}},
	} {
		if !slices.Equal(c.got, c.want) {
			e.Fatalf("listed %v, want %v", c.got, c.want)
		}
	}

	// Deleted through one group, gone from the other.
	must(e, core("DELETE").Name("modern").Do(e.ctx).Error())
	wantStatus(e, events("GET").Name("modern").Do(e.ctx).Error(), 404, metav1.StatusReasonNotFound)
}
