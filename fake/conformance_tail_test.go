package fake_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

// serverRuleCases are answers of kube-apiserver that tests written on the
// fake were found to depend on and get wrong: workload validation, apply
// without a field manager, paging at resourceVersion 0 and with a
// selector, the resourceVersions of a delete by the last finalizer, the
// order of discovery, pods/binding, pod logs and the wording of refusals.
func serverRuleCases() []conformanceCase {
	return []conformanceCase{
		{"WorkloadStatusCountsAreValidated", workloadStatusCounts},
		{"WorkloadTemplatesAreValidated", workloadTemplates},
		{"ApplyWithoutFieldManagerIsInvalid", applyWithoutFieldManager},
		{"ListAtResourceVersionZeroIgnoresLimit", listAtZeroIgnoresLimit},
		{"SelectorListWithLimitContinuesWhileObjectsRemain", selectorListContinues},
		{"LastFinalizerRemovalAnswersAtTheReplacedVersion", lastFinalizerVersions},
		{"DiscoveryOrdersGroupsByPriority", discoveryOrder},
		{"LegacyDiscoveryHasStorageVersionHashes", storageVersionHashes},
		{"PodBindingSetsTheNodeOnce", podBinding},
		{"PodLogServesTheContainersLog", podLog},
		{"RefusalsAreWordedAsKubeAPIServer", refusalWording},
		{"RequestRefusalsAreWordedAsKubeAPIServer", requestRefusalWording},
		{"ImmutableConfigMapsAndSecretsKeepTheirData", immutableData},
	}
}

// logHost is where a target's pods run: the node to bind them to and the
// way to set their containers' log content.
type logHost struct {
	node      string
	setLog    func(namespace, pod, container string, content []byte)
	appendLog func(namespace, pod, container string, content []byte)
}

// fakeServers maps the host of a fake target's config to its server, for
// the cases that set what only a test can (pod logs).
var fakeServers sync.Map

func fakeLogHost(t *testing.T, cfg *rest.Config) logHost {
	v, ok := fakeServers.Load(cfg.Host)
	if !ok {
		t.Fatalf("no fake server at %s", cfg.Host)
	}
	srv := v.(*fake.Server)
	return logHost{node: "node-a", setLog: srv.SetPodLog, appendLog: srv.AppendPodLog}
}

// wantMessage fails unless err is a StatusError of code and reason with
// exactly that message.
func wantMessage(e *env, err error, code int32, reason metav1.StatusReason, msg string) *metav1.Status {
	e.Helper()
	se := wantStatus(e, err, code, reason)
	if se.ErrStatus.Message != msg {
		e.Fatalf("message:\n got %s\nwant %s", se.ErrStatus.Message, msg)
	}
	return &se.ErrStatus
}

// A Deployment's status subresource refuses counts that cannot be:
// available above ready, ready or updated above replicas.
func workloadStatusCounts(e *env) {
	d := e.deployment("dep", 2)
	for _, c := range []struct {
		status appsv1.DeploymentStatus
		msg    string
	}{
		{appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 2, UpdatedReplicas: 3},
			`Deployment.apps "dep" is invalid: [status.updatedReplicas: Invalid value: 3: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas]`},
		{appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 1},
			`Deployment.apps "dep" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas`},
		{appsv1.DeploymentStatus{ObservedGeneration: -1},
			`Deployment.apps "dep" is invalid: status.observedGeneration: Invalid value: -1: must be greater than or equal to 0`},
	} {
		d.Status = c.status
		err := e.deploymentReq("PUT", "dep", "status").Body(d).Do(e.ctx).Error()
		st := wantMessage(e, err, 422, metav1.StatusReasonInvalid, c.msg)
		if st.Details == nil || len(st.Details.Causes) == 0 || st.Details.Causes[0].Type != metav1.CauseTypeFieldValueInvalid {
			e.Fatalf("details %+v", st.Details)
		}
	}
	d.Status = appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, UpdatedReplicas: 2}
	must(e, e.deploymentReq("PUT", "dep", "status").Body(d).Do(e.ctx).Error())
	var rs appsv1.ReplicaSet
	rsIn := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec:       appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template},
	}
	must(e, e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("replicasets").Body(rsIn).Do(e.ctx).Into(&rs))
	rs.Status = appsv1.ReplicaSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 2}
	err := e.c.Put().Group("apps").Version("v1").Namespace(e.ns).Resource("replicasets").Name("rs").SubResource("status").Body(&rs).Do(e.ctx).Error()
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, `ReplicaSet.apps "rs" is invalid: [status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas]`)
}

// Workloads refuse a template their selector does not select, a
// restartPolicy their pods cannot have, a missing or empty selector,
// negative replicas and a changed selector.
func workloadTemplates(e *env) {
	tmpl := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "s"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.example/app:1"}}},
	}
	withRestart := func(policy string) map[string]any {
		spec := map[string]any{"containers": tmpl["spec"].(map[string]any)["containers"], "restartPolicy": policy}
		return map[string]any{"metadata": tmpl["metadata"], "spec": spec}
	}
	sel := func(app string) map[string]any { return map[string]any{"matchLabels": map[string]any{"app": app}} }
	post := func(group, resource, kind string, spec map[string]any) error {
		gv := "v1"
		if group != "" {
			gv = group + "/v1"
		}
		body, _ := json.Marshal(map[string]any{"apiVersion": gv, "kind": kind, "metadata": map[string]any{"name": "w"}, "spec": spec})
		return e.c.Post().Group(group).Version("v1").Namespace(e.ns).Resource(resource).Body(body).Do(e.ctx).Error()
	}
	for _, c := range []struct {
		name                  string
		group, resource, kind string
		spec                  map[string]any
		msg                   string
	}{
		{"restartPolicy Never", "apps", "deployments", "Deployment", map[string]any{"selector": sel("s"), "template": withRestart("Never")},
			`Deployment.apps "w" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"selector not matching", "apps", "deployments", "Deployment", map[string]any{"selector": sel("other"), "template": tmpl},
			"Deployment.apps \"w\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`"},
		{"no selector", "apps", "deployments", "Deployment", map[string]any{"template": tmpl},
			"Deployment.apps \"w\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`]"},
		{"empty selector", "apps", "deployments", "Deployment", map[string]any{"selector": map[string]any{}, "template": tmpl},
			`Deployment.apps "w" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment`},
		{"negative replicas", "apps", "deployments", "Deployment", map[string]any{"replicas": -1, "selector": sel("s"), "template": tmpl},
			`Deployment.apps "w" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{"replica set selector not matching", "apps", "replicasets", "ReplicaSet", map[string]any{"selector": sel("t"), "template": tmpl},
			"ReplicaSet.apps \"w\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`"},
		{"stateful set without selector", "apps", "statefulsets", "StatefulSet", map[string]any{"template": tmpl},
			"StatefulSet.apps \"w\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`]"},
		{"daemon set without selector", "apps", "daemonsets", "DaemonSet", map[string]any{"template": tmpl},
			"DaemonSet.apps \"w\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`"},
		{"daemon set restartPolicy OnFailure", "apps", "daemonsets", "DaemonSet", map[string]any{"selector": sel("s"), "template": withRestart("OnFailure")},
			`DaemonSet.apps "w" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`},
		{"job without restartPolicy", "batch", "jobs", "Job", map[string]any{"template": tmpl},
			`Job.batch "w" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{"job with a manual selector not matching", "batch", "jobs", "Job", map[string]any{"manualSelector": true, "selector": sel("t"), "template": withRestart("Never")},
			"Job.batch \"w\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"s\"}: `selector` does not match template `labels`"},
		{"cron job without restartPolicy", "batch", "cronjobs", "CronJob", map[string]any{"schedule": "* * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": tmpl}}},
			`CronJob.batch "w" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
	} {
		e.Run(c.name, func(t *testing.T) {
			e := &env{T: t, ctx: e.ctx, c: e.c, cfg: e.cfg, ns: e.ns, tg: e.tg}
			wantMessage(e, post(c.group, c.resource, c.kind, c.spec), 422, metav1.StatusReasonInvalid, c.msg)
		})
	}
	d := e.deployment("dep", 1)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "dep", "tier": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "dep", "tier": "web"}
	err := e.deploymentReq("PUT", "dep").Body(d).Do(e.ctx).Error()
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, `Deployment.apps "dep" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"dep","tier":"web"}}: field is immutable`)
}

// Server-side apply without a field manager is 422 Invalid, its cause
// naming the missing parameter.
func applyWithoutFieldManager(e *env) {
	err := e.c.Patch(types.ApplyPatchType).Namespace(e.ns).Resource("configmaps").Name("ap").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"}}`)).Do(e.ctx).Error()
	st := wantMessage(e, err, 422, metav1.StatusReasonInvalid, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`)
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeFieldValueRequired || st.Details.Causes[0].Field != "fieldManager" {
		e.Fatalf("details %+v", st.Details)
	}
}

// listPages lists the env's configmaps page by page with params, and
// returns each page's names (and whether it continued).
func (e *env) listPages(params ...string) []string {
	e.Helper()
	var pages []string
	cont := ""
	for range 20 {
		r := e.c.Get().Namespace(e.ns).Resource("configmaps")
		for i := 0; i+1 < len(params); i += 2 {
			r = r.Param(params[i], params[i+1])
		}
		if cont != "" {
			r = r.Param("continue", cont)
		}
		var l corev1.ConfigMapList
		must(e, r.Do(e.ctx).Into(&l))
		pages = append(pages, "["+strings.Join(listNames(l.Items), " ")+"]")
		if l.Continue == "" {
			return pages
		}
		if len(params) > 0 && slices.Contains(params, "labelSelector") && l.RemainingItemCount != nil {
			e.Fatalf("a selecting list counts remaining items: %d", *l.RemainingItemCount)
		}
		cont = l.Continue
	}
	e.Fatalf("more than 20 pages: %v", pages)
	return nil
}

func (e *env) sixConfigMaps() {
	for i := range 6 {
		var labels map[string]string
		if i == 1 || i == 2 {
			labels = map[string]string{"x": "y"}
		}
		e.configMap(fmt.Sprintf("cm-%d", i), nil, labels)
	}
}

// A list at resourceVersion 0 is served from kube-apiserver's watch
// cache, which ignores limit: everything in one page. The watch cache may
// lag the last create by a moment (more on a loaded machine), so the page
// is read until it holds all six; it must never be cut at the limit.
func listAtZeroIgnoresLimit(e *env) {
	e.sixConfigMaps()
	want := []string{"[cm-0 cm-1 cm-2 cm-3 cm-4 cm-5]"}
	var got []string
	err := kubegotest.Poll(e.ctx, func(context.Context) error {
		got = e.listPages("limit", "2", "resourceVersion", "0")
		if len(got) != 1 {
			return fmt.Errorf("pages %v, want one page", got)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("pages %v, want %v", got, want)
		}
		return nil
	})
	if err != nil {
		e.Fatalf("pages %v, want %v: %v", got, want, err)
	}
	if got, want := e.listPages("limit", "2"), []string{"[cm-0 cm-1]", "[cm-2 cm-3]", "[cm-4 cm-5]"}; !slices.Equal(got, want) {
		e.Fatalf("pages %v, want %v", got, want)
	}
}

// A list with a selector and a limit continues after a full page while
// objects follow, selected or not: the last pages may be short or empty.
func selectorListContinues(e *env) {
	e.sixConfigMaps()
	for _, c := range []struct {
		limit string
		want  []string
	}{
		{"1", []string{"[cm-1]", "[cm-2]", "[]"}},
		{"2", []string{"[cm-1 cm-2]", "[]"}},
		{"3", []string{"[cm-1 cm-2]"}},
	} {
		if got := e.listPages("limit", c.limit, "labelSelector", "x=y"); !slices.Equal(got, c.want) {
			e.Fatalf("limit %s: pages %v, want %v", c.limit, got, c.want)
		}
	}
	if got, want := e.listPages("limit", "1", "labelSelector", "x=none"), []string{"[]"}; !slices.Equal(got, want) {
		e.Fatalf("pages %v, want %v", got, want)
	}
}

// The update that removes the last finalizer of an object being deleted
// deletes it: the writer gets what it wrote at the resourceVersion it
// replaced, and watchers a DELETED event of the object as last stored,
// at a new resourceVersion.
func lastFinalizerVersions(e *env) {
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Finalizers: []string{"example.com/a"}}, Data: map[string]string{"k": "old"}}
	must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Error())
	must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("f").Do(e.ctx).Error())
	cur, err := e.getConfigMap("f")
	must(e, err)
	w := e.watchCM(map[string]string{"resourceVersion": cur.ResourceVersion})
	cur.Finalizers = nil
	cur.Data = map[string]string{"k": "new"}
	var out corev1.ConfigMap
	must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("f").Body(cur).Do(e.ctx).Into(&out))
	if out.ResourceVersion != cur.ResourceVersion || len(out.Finalizers) != 0 || out.Data["k"] != "new" || out.DeletionTimestamp == nil {
		e.Fatalf("answer rv=%s finalizers=%v data=%v deleting=%v; want rv=%s, no finalizers, the data written",
			out.ResourceVersion, out.Finalizers, out.Data, out.DeletionTimestamp != nil, cur.ResourceVersion)
	}
	ev := nextNonBookmark(e, w)
	got := ev.Object.(*corev1.ConfigMap)
	if ev.Type != watch.Deleted || got.ResourceVersion == cur.ResourceVersion || !slices.Equal(got.Finalizers, []string{"example.com/a"}) || got.Data["k"] != "old" {
		e.Fatalf("event %s rv=%s finalizers=%v data=%v; want DELETED at a new rv with the stored content", ev.Type, got.ResourceVersion, got.Finalizers, got.Data)
	}
	var gone corev1.ConfigMapList
	must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Do(e.ctx).Into(&gone))
	if gone.ResourceVersion < got.ResourceVersion && len(gone.ResourceVersion) <= len(got.ResourceVersion) {
		e.Fatalf("list after the delete at rv %s, before the DELETED event's %s", gone.ResourceVersion, got.ResourceVersion)
	}
}

// builtinGroupOrder is the order in which kube-apiserver lists its
// built-in groups: by the priority of their APIServices.
var builtinGroupOrder = []string{
	"apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
	"autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
	"storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
	"coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io", "flowcontrol.apiserver.k8s.io",
	"storagemigration.k8s.io",
}

// Discovery lists groups by priority, not by name (clients resolve an
// ambiguous resource name by this order), custom resource groups after
// the built-in ones, in both forms.
func discoveryOrder(e *env) {
	e.gadgets()
	builtin := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(builtinGroupOrder, n) })
	}
	var legacy metav1.APIGroupList
	must(e, e.c.Get().AbsPath("/apis").Do(e.ctx).Into(&legacy))
	var names []string
	for _, g := range legacy.Groups {
		names = append(names, g.Name)
	}
	if got := builtin(names); !slices.Equal(got, builtinGroupOrder) {
		e.Fatalf("legacy discovery lists %v, want %v", got, builtinGroupOrder)
	}
	if i := slices.Index(names, widgetGroup); i < len(builtinGroupOrder) {
		e.Fatalf("custom group at %d among %v, want after the built-in groups", i, names)
	}
	for _, g := range legacy.Groups {
		if g.Name == "autoscaling" && (g.PreferredVersion.Version != "v2" || g.Versions[0].Version != "v2") {
			e.Fatalf("autoscaling versions %+v, preferred %+v; want v2 first", g.Versions, g.PreferredVersion)
		}
	}
	data, err := e.c.Get().AbsPath("/apis").SetHeader("Accept", mediaAggregated).DoRaw(e.ctx)
	must(e, err)
	var agg struct {
		Items []struct {
			Metadata struct{ Name string }
		}
	}
	must(e, json.Unmarshal(data, &agg))
	var aggNames []string
	for _, g := range agg.Items {
		aggNames = append(aggNames, g.Metadata.Name)
	}
	if got := builtin(aggNames); !slices.Equal(got, builtinGroupOrder) {
		e.Fatalf("aggregated discovery lists %v, want %v", got, builtinGroupOrder)
	}
}

func storageHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// Legacy discovery gives each stored resource the digest of the version
// it is stored as, and none to subresources and unstored resources.
func storageVersionHashes(e *env) {
	e.gadgets()
	hashes := func(gv string) map[string]string {
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		var rl metav1.APIResourceList
		must(e, e.c.Get().AbsPath(path).Do(e.ctx).Into(&rl))
		out := map[string]string{}
		for _, r := range rl.APIResources {
			out[r.Name] = r.StorageVersionHash
		}
		return out
	}
	for _, c := range []struct{ gv, name, want string }{
		{"v1", "configmaps", storageHash("", "v1", "ConfigMap")},
		{"v1", "pods/status", ""},
		{"v1", "componentstatuses", ""},
		{"apps/v1", "deployments", storageHash("apps", "v1", "Deployment")},
		{"events.k8s.io/v1", "events", storageHash("", "v1", "Event")},
		{"autoscaling/v1", "horizontalpodautoscalers", storageHash("autoscaling", "v2", "HorizontalPodAutoscaler")},
		{"apiextensions.k8s.io/v1", "customresourcedefinitions", storageHash("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition")},
		{"authorization.k8s.io/v1", "selfsubjectaccessreviews", ""},
		{widgetGroup + "/v1", "gadgets", storageHash(widgetGroup, "v1", "Gadget")},
	} {
		if got, ok := hashes(c.gv)[c.name]; !ok || got != c.want {
			e.Errorf("%s %s: storageVersionHash %q (listed %v), want %q", c.gv, c.name, got, ok, c.want)
		}
	}
}

// pods/binding (and the older bindings resource) set a pod's node once,
// as a scheduler does; a second binding is a conflict.
func podBinding(e *env) {
	for _, name := range []string{"p", "q"} {
		must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod(name, corev1.RestartPolicyAlways)).Do(e.ctx).Error())
	}
	bind := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{"example.com/bound-by": "test"}},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-a"},
	}
	var st metav1.Status
	must(e, e.c.Post().Namespace(e.ns).Resource("pods").Name("p").SubResource("binding").Body(bind).Do(e.ctx).Into(&st))
	if st.Status != metav1.StatusSuccess {
		e.Fatalf("binding answered %+v", st)
	}
	var pod corev1.Pod
	must(e, e.c.Get().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Into(&pod))
	scheduled := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero()
	})
	if pod.Spec.NodeName != "node-a" || scheduled < 0 || pod.Annotations["example.com/bound-by"] != "test" {
		e.Fatalf("bound pod: node %q, conditions %+v, annotations %v", pod.Spec.NodeName, pod.Status.Conditions, pod.Annotations)
	}
	if ms := managers(&pod); !slices.Equal(ms, []string{"fake.test:Update"}) && len(ms) != 1 {
		e.Fatalf("binding changed managedFields: %v", ms)
	}
	err := e.c.Post().Namespace(e.ns).Resource("pods").Name("p").SubResource("binding").Body(bind).Do(e.ctx).Error()
	st409 := wantMessage(e, err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-a"`)
	if st409.Details == nil || st409.Details.Kind != "pods/binding" {
		e.Fatalf("details %+v", st409.Details)
	}
	other := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n"}}
	err = e.c.Post().Namespace(e.ns).Resource("pods").Name("q").SubResource("binding").Body(other).Do(e.ctx).Error()
	wantMessage(e, err, 400, metav1.StatusReasonBadRequest, "name in URL does not match name in Binding object")
	wrong := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Target: corev1.ObjectReference{Kind: "Pod", Name: "n"}}
	err = e.c.Post().Namespace(e.ns).Resource("pods").Name("q").SubResource("binding").Body(wrong).Do(e.ctx).Error()
	wantMessage(e, err, 500, "", `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`)
	missing := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "nope"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n"}}
	err = e.c.Post().Namespace(e.ns).Resource("pods").Name("nope").SubResource("binding").Body(missing).Do(e.ctx).Error()
	wantMessage(e, err, 404, metav1.StatusReasonNotFound, `pods "nope" not found`)
	legacy := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Target: corev1.ObjectReference{Name: "node-b"}}
	must(e, e.c.Post().Namespace(e.ns).Resource("bindings").Body(legacy).Do(e.ctx).Error())
	must(e, e.c.Get().Namespace(e.ns).Resource("pods").Name("q").Do(e.ctx).Into(&pod))
	if pod.Spec.NodeName != "node-b" {
		e.Fatalf("bindings left node %q", pod.Spec.NodeName)
	}
	err = e.c.Get().Namespace(e.ns).Resource("bindings").Do(e.ctx).Error()
	wantStatus(e, err, 405, metav1.StatusReasonMethodNotAllowed)
}

// GET pods/{name}/log serves the container's log as its kubelet gives it:
// whole, its last lines, its first bytes, or followed as it grows.
func podLog(e *env) {
	host := e.tg.logs(e.T, e.cfg)
	pod := newPod("logged", corev1.RestartPolicyAlways)
	pod.Spec.NodeName = host.node
	must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(pod).Do(e.ctx).Error())
	host.setLog(e.ns, "logged", "c", []byte("one\ntwo\nthree\n"))
	read := func(params ...string) string {
		e.Helper()
		r := e.c.Get().Namespace(e.ns).Resource("pods").Name("logged").SubResource("log")
		for i := 0; i+1 < len(params); i += 2 {
			r = r.Param(params[i], params[i+1])
		}
		data, err := r.DoRaw(e.ctx)
		must(e, err)
		return string(data)
	}
	for _, c := range []struct {
		params []string
		want   string
	}{
		{nil, "one\ntwo\nthree\n"},
		{[]string{"container", "c"}, "one\ntwo\nthree\n"},
		{[]string{"tailLines", "2"}, "two\nthree\n"},
		{[]string{"limitBytes", "5"}, "one\nt"},
		{[]string{"tailLines", "1", "limitBytes", "3"}, "thr"},
	} {
		if got := read(c.params...); got != c.want {
			e.Fatalf("log %v: %q, want %q", c.params, got, c.want)
		}
	}
	rc, err := e.c.Get().Namespace(e.ns).Resource("pods").Name("logged").SubResource("log").Param("follow", "true").Stream(e.ctx)
	must(e, err)
	defer rc.Close()
	br := bufio.NewReader(rc)
	var lines []string
	for len(lines) < 3 {
		l, err := br.ReadString('\n')
		must(e, err)
		lines = append(lines, l)
	}
	host.appendLog(e.ns, "logged", "c", []byte("four\n"))
	l, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		must(e, err)
	}
	if l != "four\n" {
		e.Fatalf("followed log went on with %q, want %q", l, "four\n")
	}
	err = e.c.Get().Namespace(e.ns).Resource("pods").Name("logged").SubResource("log").Param("container", "nope").Do(e.ctx).Error()
	wantMessage(e, err, 400, metav1.StatusReasonBadRequest, "container nope is not valid for pod logged")
}

// The refusals a test asserts on carry kube-apiserver's words.
func refusalWording(e *env) {
	cm := e.configMap("cm", nil, nil)
	_, err := e.getConfigMap("nope")
	wantMessage(e, err, 404, metav1.StatusReasonNotFound, `configmaps "nope" not found`)
	err = e.c.Get().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("nope").Do(e.ctx).Error()
	wantMessage(e, err, 404, metav1.StatusReasonNotFound, `deployments.apps "nope" not found`)
	err = e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}).Do(e.ctx).Error()
	wantMessage(e, err, 409, metav1.StatusReasonAlreadyExists, `configmaps "cm" already exists`)
	stale := cm.DeepCopy()
	stale.ResourceVersion = "1"
	err = e.c.Put().Namespace(e.ns).Resource("configmaps").Name("cm").Body(stale).Do(e.ctx).Error()
	wantMessage(e, err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again`)
	err = e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{}).Do(e.ctx).Error()
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`)
	rv := "1"
	err = e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("cm").Body(&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}).Do(e.ctx).Error()
	st := wantMessage(e, err, 409, metav1.StatusReasonConflict, fmt.Sprintf(`Operation cannot be fulfilled on ConfigMap "cm": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (%s). The object might have been modified`, cm.ResourceVersion))
	if st.Details == nil || st.Details.Kind != "ConfigMap" {
		e.Fatalf("details %+v", st.Details)
	}
	uid := types.UID("not-the-uid")
	err = e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("cm").Body(&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}).Do(e.ctx).Error()
	wantMessage(e, err, 409, metav1.StatusReasonConflict, fmt.Sprintf(`Operation cannot be fulfilled on ConfigMap "cm": the UID in the precondition (not-the-uid) does not match the UID in record (%s). The object might have been deleted and then recreated`, cm.UID))
}

// Refusals of a request's parameters and body carry kube-apiserver's
// words: selectors, resourceVersion, patch bodies, a terminating
// namespace.
func requestRefusalWording(e *env) {
	e.configMap("cm", map[string]string{"a": "b"}, nil)
	list := func(k, v string) error {
		return e.c.Get().Namespace(e.ns).Resource("configmaps").Param(k, v).Do(e.ctx).Error()
	}
	wantMessage(e, list("labelSelector", "a in ("), 400, metav1.StatusReasonBadRequest, "unable to parse requirement: found '', expected: ',', ')' or identifier")
	wantMessage(e, list("resourceVersion", "abc"), 400, metav1.StatusReasonBadRequest, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)
	wantMessage(e, list("fieldSelector", "spec.foo=bar"), 400, metav1.StatusReasonBadRequest, `"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"`)
	_, err := e.patchCM(types.StrategicMergePatchType, "cm", `{"data":`)
	wantMessage(e, err, 400, metav1.StatusReasonBadRequest, "invalid JSON patch")
	err = e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}).Do(e.ctx).Error()
	wantMessage(e, err, 400, metav1.StatusReasonBadRequest, `Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`)

	ns := e.ns + "-gone"
	must(e, e.c.Post().Resource("namespaces").Body(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}).Do(e.ctx).Error())
	hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hold", Finalizers: []string{"example.com/hold"}}}
	must(e, e.c.Post().Namespace(ns).Resource("configmaps").Body(hold).Do(e.ctx).Error())
	e.Cleanup(func() {
		_ = e.c.Patch(types.MergePatchType).Namespace(ns).Resource("configmaps").Name("hold").Body([]byte(`{"metadata":{"finalizers":null}}`)).Do(e.ctx).Error()
	})
	must(e, e.c.Delete().Resource("namespaces").Name(ns).Do(e.ctx).Error())
	err = e.c.Post().Namespace(ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}).Do(e.ctx).Error()
	st := wantMessage(e, err, 403, metav1.StatusReasonForbidden, fmt.Sprintf(`configmaps "x" is forbidden: unable to create new content in namespace %s because it is being terminated`, ns))
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0] != (metav1.StatusCause{
		Type: corev1.NamespaceTerminatingCause, Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace",
	}) {
		e.Fatalf("details %+v", st.Details)
	}
}

// An immutable ConfigMap or Secret keeps its data and stays immutable; a
// Secret keeps its type.
func immutableData(e *env) {
	yes := true
	must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "im"}, Data: map[string]string{"a": "b"}, Immutable: &yes,
	}).Do(e.ctx).Error())
	_, err := e.patchCM(types.MergePatchType, "im", `{"data":{"a":"c"}}`)
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, "ConfigMap \"im\" is invalid: data: Forbidden: field is immutable when `immutable` is set")
	_, err = e.patchCM(types.MergePatchType, "im", `{"immutable":false}`)
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, "ConfigMap \"im\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set")
	_, err = e.patchCM(types.MergePatchType, "im", `{"metadata":{"labels":{"l":"v"}}}`)
	must(e, err)
	must(e, e.c.Post().Namespace(e.ns).Resource("secrets").Body(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a": []byte("b")}, Immutable: &yes,
	}).Do(e.ctx).Error())
	err = e.c.Patch(types.MergePatchType).Namespace(e.ns).Resource("secrets").Name("s").Body([]byte(`{"type":"example.com/other","data":{"a":"Yw=="}}`)).Do(e.ctx).Error()
	wantMessage(e, err, 422, metav1.StatusReasonInvalid, "Secret \"s\" is invalid: [type: Invalid value: \"example.com/other\": field is immutable, data: Forbidden: field is immutable when `immutable` is set]")
}
