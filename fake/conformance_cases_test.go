package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
)

func conformanceCases() []conformanceCase {
	return []conformanceCase{
		{"CreateSetsUIDResourceVersionAndCreationTimestamp", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
				e.Fatalf("created object lacks uid/rv/creationTimestamp: %+v", cm.ObjectMeta)
			}
			got, err := e.getConfigMap("a")
			must(e, err)
			if got.UID != cm.UID || got.ResourceVersion != cm.ResourceVersion || got.Data["k"] != "v" {
				e.Fatalf("get returned %+v, want the created object", got)
			}
		}},
		{"UpdateChangesResourceVersion", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			cm.Data["k"] = "w"
			var out corev1.ConfigMap
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Into(&out))
			if out.ResourceVersion == cm.ResourceVersion || out.Data["k"] != "w" {
				e.Fatalf("update: rv %s→%s data %v", cm.ResourceVersion, out.ResourceVersion, out.Data)
			}
		}},
		{"NoOpUpdateKeepsResourceVersion", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			var out corev1.ConfigMap
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Into(&out))
			if out.ResourceVersion != cm.ResourceVersion {
				e.Fatalf("no-op update changed rv %s→%s", cm.ResourceVersion, out.ResourceVersion)
			}
		}},
		{"DeleteThenGetIsNotFound", func(e *env) {
			e.configMap("a", nil, nil)
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("a").Do(e.ctx).Error())
			_, err := e.getConfigMap("a")
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"CreateExistingIsAlreadyExists", func(e *env) {
			e.configMap("a", nil, nil)
			err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}).Do(e.ctx).Error()
			wantStatus(e, err, 409, metav1.StatusReasonAlreadyExists)
		}},
		{"CreateInMissingNamespaceIsNotFound", func(e *env) {
			err := e.c.Post().Namespace(e.ns + "-missing").Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}).Do(e.ctx).Error()
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"NamespaceMismatchIsBadRequest", func(e *env) {
			err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "other"}}).Do(e.ctx).Error()
			wantStatus(e, err, 400, metav1.StatusReasonBadRequest)
		}},
		{"GetMissingIsNotFound", func(e *env) {
			_, err := e.getConfigMap("nope")
			se := wantStatus(e, err, 404, metav1.StatusReasonNotFound)
			if se.ErrStatus.Details == nil || se.ErrStatus.Details.Name != "nope" || se.ErrStatus.Details.Kind != "configmaps" {
				e.Fatalf("details = %+v", se.ErrStatus.Details)
			}
		}},
		{"UpdateWithStaleResourceVersionConflicts", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			stale := cm.DeepCopy()
			cm.Data["k"] = "w"
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Error())
			stale.Data["k"] = "x"
			err := e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(stale).Do(e.ctx).Error()
			wantStatus(e, err, 409, metav1.StatusReasonConflict)
		}},
		{"UpdateWithoutResourceVersionIsUnconditional", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			cm.ResourceVersion = ""
			cm.Data["k"] = "w"
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Error())
		}},
		{"UpdateMissingIsNotFound", func(e *env) {
			err := e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}).Do(e.ctx).Error()
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"GenerateNameAssignsUniqueNames", func(e *env) {
			seen := map[string]bool{}
			for range 3 {
				var out corev1.ConfigMap
				must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}).Do(e.ctx).Into(&out))
				if !strings.HasPrefix(out.Name, "gen-") || len(out.Name) != len("gen-")+5 || seen[out.Name] {
					e.Fatalf("generated name %q", out.Name)
				}
				seen[out.Name] = true
			}
		}},
		{"CreateWithoutNameIsInvalid", func(e *env) {
			err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{}).Do(e.ctx).Error()
			wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		}},
		{"GenerationBumpsOnSpecChangeOnly", func(e *env) {
			d := e.deployment("d", 1)
			if d.Generation != 1 {
				e.Fatalf("generation after create = %d, want 1", d.Generation)
			}
			d.Labels = map[string]string{"x": "y"}
			must(e, e.deploymentReq("PUT", "d").Body(d).Do(e.ctx).Into(d))
			if d.Generation != 1 {
				e.Fatalf("generation after metadata change = %d, want 1", d.Generation)
			}
			d.Status.ObservedGeneration = 1
			must(e, e.deploymentReq("PUT", "d", "status").Body(d).Do(e.ctx).Into(d))
			if d.Generation != 1 {
				e.Fatalf("generation after status change = %d, want 1", d.Generation)
			}
			*d.Spec.Replicas = 3
			must(e, e.deploymentReq("PUT", "d").Body(d).Do(e.ctx).Into(d))
			if d.Generation != 2 {
				e.Fatalf("generation after spec change = %d, want 2", d.Generation)
			}
		}},
		{"CreateDropsStatusOfStatusSubresourceKinds", func(e *env) {
			in := newDeployment("d", 1)
			in.Status.Replicas = 5
			var out appsv1.Deployment
			must(e, e.c.Post().Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Body(in).Do(e.ctx).Into(&out))
			if out.Status.Replicas != 0 {
				e.Fatalf("status.replicas = %d after create, want 0", out.Status.Replicas)
			}
		}},
		{"StatusUpdateIgnoresSpecAndUpdateIgnoresStatus", func(e *env) {
			d := e.deployment("d", 1)
			d.Status.Replicas = 7
			*d.Spec.Replicas = 9
			var out appsv1.Deployment
			must(e, e.deploymentReq("PUT", "d", "status").Body(d).Do(e.ctx).Into(&out))
			if out.Status.Replicas != 7 || *out.Spec.Replicas != 1 {
				e.Fatalf("after status update: spec.replicas=%d status.replicas=%d, want 1 and 7", *out.Spec.Replicas, out.Status.Replicas)
			}
			out.Status.Replicas = 0
			*out.Spec.Replicas = 4
			must(e, e.deploymentReq("PUT", "d").Body(&out).Do(e.ctx).Into(&out))
			if out.Status.Replicas != 7 || *out.Spec.Replicas != 4 {
				e.Fatalf("after update: spec.replicas=%d status.replicas=%d, want 4 and 7", *out.Spec.Replicas, out.Status.Replicas)
			}
		}},
		{"ScaleSubresourceReadsAndWritesReplicas", func(e *env) {
			e.deployment("d", 2)
			var sc autoscalingv1.Scale
			must(e, e.deploymentReq("GET", "d", "scale").Do(e.ctx).Into(&sc))
			if sc.Spec.Replicas != 2 || sc.Status.Selector != "app=d" {
				e.Fatalf("scale = %+v", sc)
			}
			sc.Spec.Replicas = 5
			must(e, e.deploymentReq("PUT", "d", "scale").Body(&sc).Do(e.ctx).Into(&sc))
			var d appsv1.Deployment
			must(e, e.deploymentReq("GET", "d").Do(e.ctx).Into(&d))
			if *d.Spec.Replicas != 5 || d.Generation != 2 {
				e.Fatalf("after scale: replicas=%d generation=%d", *d.Spec.Replicas, d.Generation)
			}
		}},
		{"DeleteWithFinalizerSetsDeletionTimestamp", func(e *env) {
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Finalizers: []string{"example.com/hold"}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("f").Do(e.ctx).Error())
			got, err := e.getConfigMap("f")
			must(e, err)
			if got.DeletionTimestamp == nil {
				e.Fatal("deletionTimestamp not set")
			}
			// Deleting again changes nothing.
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("f").Do(e.ctx).Error())
			again, err := e.getConfigMap("f")
			must(e, err)
			if again.ResourceVersion != got.ResourceVersion {
				e.Fatalf("second delete changed rv %s→%s", got.ResourceVersion, again.ResourceVersion)
			}
		}},
		{"RemovingLastFinalizerDeletes", func(e *env) {
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Finalizers: []string{"example.com/a", "example.com/b"}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("f").Do(e.ctx).Error())
			got, err := e.getConfigMap("f")
			must(e, err)
			w := e.watchCM(map[string]string{"resourceVersion": got.ResourceVersion})
			got.Finalizers = []string{"example.com/b"}
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("f").Body(got).Do(e.ctx).Into(got))
			if _, err := e.getConfigMap("f"); err != nil {
				e.Fatalf("object gone with a finalizer left: %v", err)
			}
			got.Finalizers = nil
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("f").Body(got).Do(e.ctx).Error())
			_, err = e.getConfigMap("f")
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
			var types []string
			for {
				ev := nextNonBookmark(e, w)
				types = append(types, string(ev.Type)+":"+strings.Join(ev.Object.(*corev1.ConfigMap).Finalizers, "+"))
				if ev.Type == watch.Deleted {
					break
				}
			}
			if want := []string{"MODIFIED:example.com/b", "DELETED:example.com/b"}; !slices.Equal(types, want) {
				e.Fatalf("events %v, want %v", types, want)
			}
		}},
		{"AddingFinalizerWhileDeletingIsInvalid", func(e *env) {
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Finalizers: []string{"example.com/a"}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("f").Do(e.ctx).Error())
			got, err := e.getConfigMap("f")
			must(e, err)
			got.Finalizers = append(got.Finalizers, "example.com/b")
			err = e.c.Put().Namespace(e.ns).Resource("configmaps").Name("f").Body(got).Do(e.ctx).Error()
			wantStatus(e, err, 422, metav1.StatusReasonInvalid)
			got.Finalizers = nil
			_ = e.c.Put().Namespace(e.ns).Resource("configmaps").Name("f").Body(got).Do(e.ctx).Error()
		}},
		{"DeletePreconditionMismatchConflicts", func(e *env) {
			e.configMap("a", nil, nil)
			uid := types.UID("00000000-0000-0000-0000-000000000000")
			opts := &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}, Preconditions: &metav1.Preconditions{UID: &uid}}
			data, _ := json.Marshal(opts)
			err := e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("a").Body(data).Do(e.ctx).Error()
			wantStatus(e, err, 409, metav1.StatusReasonConflict)
		}},
		{"PodStartsPendingWithItsQoSClass", func(e *env) {
			p := newPod("p", corev1.RestartPolicyAlways)
			p.Status.Phase = corev1.PodRunning // ignored on create
			var out corev1.Pod
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(p).Do(e.ctx).Into(&out))
			if out.Status.Phase != corev1.PodPending || out.Status.QOSClass != corev1.PodQOSBestEffort || out.Generation != 1 {
				e.Fatalf("phase %q qos %q generation %d", out.Status.Phase, out.Status.QOSClass, out.Generation)
			}
		}},
		{"DeleteAnswersWithStatusOrObjectByKind", func(e *env) {
			e.configMap("a", nil, nil)
			raw, err := e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("a").DoRaw(e.ctx)
			must(e, err)
			var st metav1.Status
			_ = json.Unmarshal(raw, &st)
			if e.tg.contentType != rest.ContentTypeJSON {
				st = metav1.Status{}
				must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}).Do(e.ctx).Error())
				must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("a").Do(e.ctx).Into(&st))
			}
			if st.Status != metav1.StatusSuccess || st.Details == nil || st.Details.Name != "a" || st.Details.Kind != "configmaps" || st.Details.UID == "" {
				e.Fatalf("configmap delete answered %s", raw)
			}
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod("p", corev1.RestartPolicyAlways)).Do(e.ctx).Error())
			var pod corev1.Pod
			must(e, e.c.Delete().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Into(&pod))
			if pod.Name != "p" {
				e.Fatalf("pod delete answered %+v", pod.ObjectMeta)
			}
		}},
		{"DeleteCollectionAnswersWithTheDeletedItems", func(e *env) {
			e.configMap("b", nil, nil)
			e.configMap("a", nil, nil)
			var list corev1.ConfigMapList
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Do(e.ctx).Into(&list))
			if names := listNames(list.Items); !slices.Contains(names, "a") || !slices.Contains(names, "b") {
				e.Fatalf("deleted %v", names)
			}
		}},
		{"UnscheduledPodDeletesImmediately", func(e *env) {
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod("p", corev1.RestartPolicyAlways)).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Error())
			err := e.c.Get().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Error()
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"BoundPodDeletionIsGraceful", func(e *env) {
			p := newPod("p", corev1.RestartPolicyAlways)
			p.Spec.NodeName = "node-1"
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(p).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Error())
			var got corev1.Pod
			must(e, e.c.Get().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Into(&got))
			if got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
				e.Fatalf("deletionTimestamp=%v grace=%v", got.DeletionTimestamp, got.DeletionGracePeriodSeconds)
			}
			zero := int64(0)
			data, _ := json.Marshal(&metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}, GracePeriodSeconds: &zero})
			must(e, e.c.Delete().Namespace(e.ns).Resource("pods").Name("p").Body(data).Do(e.ctx).Error())
			err := e.c.Get().Namespace(e.ns).Resource("pods").Name("p").Do(e.ctx).Error()
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"LabelSelectorFiltersList", func(e *env) {
			e.configMap("a", nil, map[string]string{"tier": "web"})
			e.configMap("b", nil, map[string]string{"tier": "db"})
			e.configMap("c", nil, nil)
			var list corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "tier in (web,db),tier!=db").Do(e.ctx).Into(&list))
			if names := listNames(list.Items); !slices.Equal(names, []string{"a"}) {
				e.Fatalf("names %v", names)
			}
		}},
		{"FieldSelectorOnNameAndPodFields", func(e *env) {
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod("never", corev1.RestartPolicyNever)).Do(e.ctx).Error())
			must(e, e.c.Post().Namespace(e.ns).Resource("pods").Body(newPod("always", corev1.RestartPolicyAlways)).Do(e.ctx).Error())
			for sel, want := range map[string][]string{
				"metadata.name=never":                            {"never"},
				"spec.restartPolicy=Always":                      {"always"},
				"spec.restartPolicy!=Always,metadata.name!=x":    {"never"},
				"metadata.namespace=" + e.ns + ",spec.nodeName=": {"always", "never"},
			} {
				var list corev1.PodList
				must(e, e.c.Get().Namespace(e.ns).Resource("pods").Param("fieldSelector", sel).Do(e.ctx).Into(&list))
				var names []string
				for _, p := range list.Items {
					names = append(names, p.Name)
				}
				if !slices.Equal(names, want) {
					e.Fatalf("%s: names %v, want %v", sel, names, want)
				}
			}
		}},
		{"UnsupportedFieldSelectorIsBadRequest", func(e *env) {
			err := e.c.Get().Namespace(e.ns).Resource("configmaps").Param("fieldSelector", "data.k=v").Do(e.ctx).Error()
			wantStatus(e, err, 400, metav1.StatusReasonBadRequest)
		}},
		{"PaginationIsConsistentAndOrdered", func(e *env) {
			for _, n := range []string{"e", "b", "d", "a", "c"} {
				e.configMap(n, nil, nil)
			}
			var page corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "2").Do(e.ctx).Into(&page))
			names := listNames(page.Items)
			if page.Continue == "" || page.RemainingItemCount == nil || *page.RemainingItemCount != 3 {
				e.Fatalf("first page: continue=%q remaining=%v", page.Continue, page.RemainingItemCount)
			}
			e.configMap("aa", nil, nil) // not in the snapshot being paged
			for page.Continue != "" {
				tok := page.Continue
				page = corev1.ConfigMapList{}
				must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "2").Param("continue", tok).Do(e.ctx).Into(&page))
				names = append(names, listNames(page.Items)...)
			}
			if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(names, want) {
				e.Fatalf("paged names %v, want %v", names, want)
			}
		}},
		{"InvalidContinueIsBadRequest", func(e *env) {
			err := e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "1").Param("continue", "not-a-token").Do(e.ctx).Error()
			wantStatus(e, err, 400, metav1.StatusReasonBadRequest)
		}},
		{"ListAtExactResourceVersionShowsPastState", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "old"}, nil)
			var list corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Do(e.ctx).Into(&list))
			at := list.ResourceVersion
			cm.Data["k"] = "new"
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Error())
			e.configMap("b", nil, nil)
			list = corev1.ConfigMapList{}
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("resourceVersion", at).Param("resourceVersionMatch", "Exact").Do(e.ctx).Into(&list))
			if len(list.Items) != 1 || list.Items[0].Data["k"] != "old" || list.ResourceVersion != at {
				e.Fatalf("exact list at %s: rv %s items %v", at, list.ResourceVersion, list.Items)
			}
		}},
		{"ResourceVersionMatchWithoutResourceVersionIsInvalid", func(e *env) {
			err := e.c.Get().Namespace(e.ns).Resource("configmaps").Param("resourceVersionMatch", "NotOlderThan").Do(e.ctx).Error()
			wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		}},
		{"WatchFromResourceVersionDeliversInOrder", func(e *env) {
			var list corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Do(e.ctx).Into(&list))
			cm := e.configMap("a", map[string]string{"k": "1"}, nil)
			cm.Data["k"] = "2"
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("a").Do(e.ctx).Error())
			w := e.watchCM(map[string]string{"resourceVersion": list.ResourceVersion})
			var got []string
			last := uint64(0)
			for range 3 {
				ev := nextNonBookmark(e, w)
				m := ev.Object.(*corev1.ConfigMap)
				rv, _ := strconv.ParseUint(m.ResourceVersion, 10, 64)
				if rv <= last {
					e.Fatalf("resourceVersion %d after %d", rv, last)
				}
				last = rv
				got = append(got, string(ev.Type)+":"+m.Data["k"])
			}
			if want := []string{"ADDED:1", "MODIFIED:2", "DELETED:2"}; !slices.Equal(got, want) {
				e.Fatalf("events %v, want %v", got, want)
			}
		}},
		{"WatchWithoutResourceVersionStartsWithCurrentState", func(e *env) {
			e.configMap("a", nil, nil)
			w := e.watchCM(nil)
			ev := nextNonBookmark(e, w)
			if ev.Type != watch.Added || nameOf(ev.Object) != "a" {
				e.Fatalf("first event %s %s", ev.Type, nameOf(ev.Object))
			}
		}},
		{"WatchWithLabelSelectorSeesObjectsLeaveAndEnter", func(e *env) {
			cm := e.configMap("a", nil, map[string]string{"on": "yes"})
			w := e.watchCM(map[string]string{"resourceVersion": cm.ResourceVersion, "labelSelector": "on=yes"})
			cm.Labels = nil
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Into(cm))
			cm.Labels = map[string]string{"on": "yes"}
			must(e, e.c.Put().Namespace(e.ns).Resource("configmaps").Name("a").Body(cm).Do(e.ctx).Into(cm))
			got := []watch.EventType{nextNonBookmark(e, w).Type, nextNonBookmark(e, w).Type}
			if want := []watch.EventType{watch.Deleted, watch.Added}; !slices.Equal(got, want) {
				e.Fatalf("events %v, want %v", got, want)
			}
		}},
		{"SendInitialEventsEndsWithAnnotatedBookmark", func(e *env) {
			e.configMap("b", nil, nil)
			e.configMap("a", nil, nil)
			w := e.watchCM(map[string]string{"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"})
			var names []string
			for {
				ev := next(e, w)
				if ev.Type == watch.Bookmark {
					m := ev.Object.(*corev1.ConfigMap)
					if m.Annotations["k8s.io/initial-events-end"] != "true" {
						continue
					}
					if m.ResourceVersion == "" {
						e.Fatal("end bookmark without resourceVersion")
					}
					break
				}
				if ev.Type != watch.Added {
					e.Fatalf("initial event %s", ev.Type)
				}
				names = append(names, nameOf(ev.Object))
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"a", "b"}) {
				e.Fatalf("initial names %v", names)
			}
			e.configMap("c", nil, nil)
			if ev := nextNonBookmark(e, w); ev.Type != watch.Added || nameOf(ev.Object) != "c" {
				e.Fatalf("after initial events: %s %s", ev.Type, nameOf(ev.Object))
			}
		}},
		{"SendInitialEventsRequiresNotOlderThan", func(e *env) {
			_, err := e.c.Get().Namespace(e.ns).Resource("configmaps").Param("sendInitialEvents", "true").Param("allowWatchBookmarks", "true").
				Watch(e.ctx, func() runtime.Object { return &corev1.ConfigMap{} })
			wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		}},
		{"WatchFromTooOldResourceVersionIsExpired", func(e *env) {
			for i := range 60 {
				e.configMap(fmt.Sprintf("c%d", i), nil, nil)
			}
			w := e.watchCM(map[string]string{"resourceVersion": "1"})
			for ev := range w.ResultChan() { // Err is final once the channel closes
				if ev.Type != watch.Bookmark && ev.Type != watch.Error {
					e.Fatalf("got %s before the error", ev.Type)
				}
			}
			if err := w.Err(); !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
				e.Fatalf("watch from rv 1 ended with %v, want 410", err)
			}
		}},
		{"ExpiredContinueHandsBackAnInconsistentToken", func(e *env) {
			for _, n := range []string{"a", "b", "c"} {
				e.configMap(n, nil, nil)
			}
			var page corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "1").Do(e.ctx).Into(&page))
			if page.Continue == "" {
				e.Fatalf("first page has no continue token")
			}
			for i := range 60 { // past the history the token's snapshot needs
				e.configMap(fmt.Sprintf("z%d", i), nil, nil)
			}
			err := e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "500").Param("continue", page.Continue).Do(e.ctx).Error()
			se := wantStatus(e, err, 410, metav1.StatusReasonExpired)
			if se.ErrStatus.Continue == "" || !strings.Contains(se.ErrStatus.Message, "inconsistent list") {
				e.Fatalf("410 without the inconsistent continue token: continue=%q message=%q", se.ErrStatus.Continue, se.ErrStatus.Message)
			}
			var rest corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("limit", "500").Param("continue", se.ErrStatus.Continue).Do(e.ctx).Into(&rest))
			if len(rest.Items) != 62 || rest.Items[0].Name != "b" || rest.Continue != "" {
				e.Fatalf("rest of the list: %d items from %q, continue %q; want 62 from b, no continue", len(rest.Items), rest.Items[0].Name, rest.Continue)
			}
		}},
		{"MergePatchSetsAndRemovesFields", func(e *env) {
			e.configMap("a", map[string]string{"k": "v", "drop": "x"}, nil)
			out, err := e.patchCM(types.MergePatchType, "a", `{"data":{"k":"w","drop":null},"metadata":{"labels":{"l":"1"}}}`)
			must(e, err)
			if out.Data["k"] != "w" || out.Data["drop"] != "" || len(out.Data) != 1 || out.Labels["l"] != "1" {
				e.Fatalf("patched %+v", out)
			}
		}},
		{"JSONPatchAppliesOperations", func(e *env) {
			e.configMap("a", map[string]string{"k": "v"}, nil)
			out, err := e.patchCM(types.JSONPatchType, "a", `[{"op":"add","path":"/data/n","value":"1"},{"op":"replace","path":"/data/k","value":"w"}]`)
			must(e, err)
			if out.Data["k"] != "w" || out.Data["n"] != "1" {
				e.Fatalf("patched %v", out.Data)
			}
		}},
		{"JSONPatchFailedTestIsInvalid", func(e *env) {
			e.configMap("a", map[string]string{"k": "v"}, nil)
			_, err := e.patchCM(types.JSONPatchType, "a", `[{"op":"test","path":"/data/k","value":"other"}]`)
			wantStatus(e, err, 422, "")
		}},
		{"PatchWithStaleResourceVersionConflicts", func(e *env) {
			cm := e.configMap("a", map[string]string{"k": "v"}, nil)
			_, err := e.patchCM(types.MergePatchType, "a", `{"data":{"k":"w"}}`)
			must(e, err)
			_, err = e.patchCM(types.MergePatchType, "a", fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"k":"x"}}`, cm.ResourceVersion))
			wantStatus(e, err, 409, metav1.StatusReasonConflict)
		}},
		{"PatchMissingIsNotFound", func(e *env) {
			_, err := e.patchCM(types.MergePatchType, "nope", `{"data":{"k":"w"}}`)
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"StrategicMergePatchMergesContainersByName", func(e *env) {
			e.deployment("d", 1)
			patch := `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"registry.example/side:1"}]}}}}`
			var d appsv1.Deployment
			must(e, e.c.Patch(types.StrategicMergePatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("d").Body([]byte(patch)).Do(e.ctx).Into(&d))
			var names []string
			for _, c := range d.Spec.Template.Spec.Containers {
				names = append(names, c.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"app", "sidecar"}) {
				e.Fatalf("containers %v", names)
			}
		}},
		{"StrategicMergePatchOnCustomResourceIsUnsupported", func(e *env) {
			req := e.widgets()
			must(e, req(http.MethodPost).Body(widget("w", map[string]any{"size": 1})).Do(e.ctx).Error())
			err := req(http.MethodPatch).Name("w").SetHeader("Content-Type", string(types.StrategicMergePatchType)).Body([]byte(`{"spec":{"size":2}}`)).Do(e.ctx).Error()
			if err == nil {
				err = e.c.Patch(types.StrategicMergePatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("widgets").Name("w").Body([]byte(`{"spec":{"size":2}}`)).Do(e.ctx).Error()
			}
			wantStatus(e, err, 415, metav1.StatusReasonUnsupportedMediaType)
		}},
		{"UpdateRecordsFieldManager", func(e *env) {
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}
			var out corev1.ConfigMap
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Param("fieldManager", "tester").Body(in).Do(e.ctx).Into(&out))
			if got := managers(&out); !slices.Equal(got, []string{"tester:Update"}) {
				e.Fatalf("managers %v", got)
			}
		}},
		{"ApplyCreatesAndRecordsManager", func(e *env) {
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`
			out, err := e.patchCM(types.ApplyYAMLPatchType, "a", body, "fieldManager", "alice")
			must(e, err)
			if out.Data["k"] != "v" || !slices.Equal(managers(out), []string{"alice:Apply"}) {
				e.Fatalf("applied %v managers %v", out.Data, managers(out))
			}
		}},
		{"ApplyWithoutFieldManagerIsRejected", func(e *env) {
			_, err := e.patchCM(types.ApplyYAMLPatchType, "a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
			if err == nil || (!apierrors.IsBadRequest(err) && !apierrors.IsInvalid(err)) {
				e.Fatalf("got %v, want 400 or 422", err)
			}
		}},
		{"ApplyConflictNamesOtherManagerAndForceTakesOver", func(e *env) {
			a := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"alice"}}`
			b := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"bob"}}`
			_, err := e.patchCM(types.ApplyYAMLPatchType, "a", a, "fieldManager", "alice")
			must(e, err)
			_, err = e.patchCM(types.ApplyYAMLPatchType, "a", b, "fieldManager", "bob")
			se := wantStatus(e, err, 409, metav1.StatusReasonConflict)
			if !strings.Contains(se.ErrStatus.Message, "alice") || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) == 0 || se.ErrStatus.Details.Causes[0].Field != ".data.k" {
				e.Fatalf("conflict %+v", se.ErrStatus)
			}
			out, err := e.patchCM(types.ApplyYAMLPatchType, "a", b, "fieldManager", "bob", "force", "true")
			must(e, err)
			if out.Data["k"] != "bob" || !slices.Equal(managers(out), []string{"bob:Apply"}) {
				e.Fatalf("forced: data %v managers %v", out.Data, managers(out))
			}
		}},
		{"ApplySharedFieldsDoNotConflict", func(e *env) {
			a := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"same"}}`
			_, err := e.patchCM(types.ApplyYAMLPatchType, "a", a, "fieldManager", "alice")
			must(e, err)
			out, err := e.patchCM(types.ApplyYAMLPatchType, "a", a, "fieldManager", "bob")
			must(e, err)
			if !slices.Equal(managers(out), []string{"alice:Apply", "bob:Apply"}) {
				e.Fatalf("managers %v", managers(out))
			}
		}},
		{"ApplyMergesContainerListsByName", func(e *env) {
			apply := func(manager, container string) (*appsv1.Deployment, error) {
				body := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":%q,"image":"registry.example/%s:1"}]}}}}`, container, container)
				var d appsv1.Deployment
				err := e.c.Patch(types.ApplyYAMLPatchType).Group("apps").Version("v1").Namespace(e.ns).Resource("deployments").Name("d").
					Param("fieldManager", manager).Body([]byte(body)).Do(e.ctx).Into(&d)
				return &d, err
			}
			_, err := apply("alice", "app")
			must(e, err)
			d, err := apply("bob", "sidecar")
			must(e, err)
			var names []string
			for _, c := range d.Spec.Template.Spec.Containers {
				names = append(names, c.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"app", "sidecar"}) {
				e.Fatalf("containers %v", names)
			}
		}},
		{"ApplyOnCustomResourceWithStatus", func(e *env) {
			req := e.widgets()
			body := string(widget("w", map[string]any{"size": 1}))
			var u unstructured.Unstructured
			must(e, req(http.MethodPatch).Name("w").SetHeader("Content-Type", string(types.ApplyYAMLPatchType)).Param("fieldManager", "alice").Body([]byte(body)).Do(e.ctx).Into(&u))
			if u.GetGeneration() != 1 || !slices.Equal(managers(&u), []string{"alice:Apply"}) {
				e.Fatalf("generation %d managers %v", u.GetGeneration(), managers(&u))
			}
			other := string(widget("w", map[string]any{"size": 2}))
			err := req(http.MethodPatch).Name("w").SetHeader("Content-Type", string(types.ApplyYAMLPatchType)).Param("fieldManager", "bob").Body([]byte(other)).Do(e.ctx).Error()
			wantStatus(e, err, 409, metav1.StatusReasonConflict)
			// status is a separate subresource: writing it leaves spec alone.
			st := `{"apiVersion":"` + widgetGroup + `/v1","kind":"Widget","metadata":{"name":"w"},"status":{"ready":true}}`
			must(e, req(http.MethodPatch).Name("w").SubResource("status").SetHeader("Content-Type", string(types.ApplyYAMLPatchType)).Param("fieldManager", "ctrl").Body([]byte(st)).Do(e.ctx).Into(&u))
			ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready")
			size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size")
			if !ready || size != 1 || u.GetGeneration() != 1 {
				e.Fatalf("after status apply: ready=%v size=%d generation=%d", ready, size, u.GetGeneration())
			}
		}},
		{"MergeAndJSONPatchOnCustomResource", func(e *env) {
			req := e.widgets()
			must(e, req(http.MethodPost).Body(widget("w", map[string]any{"size": 1, "color": "red"})).Do(e.ctx).Error())
			var u unstructured.Unstructured
			must(e, e.c.Patch(types.MergePatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("widgets").Name("w").
				Body([]byte(`{"spec":{"size":2,"color":null}}`)).Do(e.ctx).Into(&u))
			if size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size"); size != 2 || u.GetGeneration() != 2 {
				e.Fatalf("merge patch: %v generation %d", u.Object["spec"], u.GetGeneration())
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "color"); found {
				e.Fatal("merge patch null did not remove spec.color")
			}
			must(e, e.c.Patch(types.JSONPatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("widgets").Name("w").
				Body([]byte(`[{"op":"add","path":"/spec/tags","value":["a"]}]`)).Do(e.ctx).Into(&u))
			if tags, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "tags"); len(tags) != 1 || u.GetGeneration() != 3 {
				e.Fatalf("json patch: %v generation %d", u.Object["spec"], u.GetGeneration())
			}
		}},
		{"ListAtFutureResourceVersionIsTooLarge", func(e *env) {
			cfg := e.tg.config(e.T)
			cfg.MaxRetries = -1 // the answer carries Retry-After; see it rather than retry
			c, err := rest.NewClient(cfg)
			must(e, err)
			err = c.Get().Namespace("default").Resource("configmaps").Param("resourceVersion", "999999999").Param("resourceVersionMatch", "NotOlderThan").Do(e.ctx).Error()
			se := wantStatus(e, err, 504, metav1.StatusReasonTimeout)
			if !apierrors.HasStatusCause(se, metav1.CauseTypeResourceVersionTooLarge) {
				e.Fatalf("causes %+v", se.ErrStatus.Details)
			}
		}},
		{"CustomResourceUnknownFieldsArePruned", func(e *env) {
			req := e.gadgets()
			body, _ := json.Marshal(map[string]any{
				"apiVersion": widgetGroup + "/v1", "kind": "Gadget",
				"metadata": map[string]any{"name": "g"},
				"junk":     "dropped",
				"spec": map[string]any{
					"size": 2, "bogus": true,
					"ports":  []any{map[string]any{"port": 80, "weight": 3}},
					"labels": map[string]any{"a": "b"},
					"extra":  map[string]any{"anything": map[string]any{"goes": 1}},
				},
				"status": map[string]any{"ready": true, "phase": "x"},
			})
			var u unstructured.Unstructured
			must(e, req(http.MethodPost).Body(body).Do(e.ctx).Into(&u))
			for _, path := range [][]string{{"junk"}, {"spec", "bogus"}, {"status"}} {
				if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, path...); found {
					e.Fatalf("%v kept: %v", path, u.Object)
				}
			}
			ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
			if len(ports) != 1 || ports[0].(map[string]any)["weight"] != nil {
				e.Fatalf("ports not pruned: %v", ports)
			}
			if v, _, _ := unstructured.NestedInt64(u.Object, "spec", "extra", "anything", "goes"); v != 1 {
				e.Fatalf("preserved subtree lost: %v", u.Object["spec"])
			}
			if v, _, _ := unstructured.NestedString(u.Object, "spec", "labels", "a"); v != "b" {
				e.Fatalf("map values lost: %v", u.Object["spec"])
			}
			// The status subresource prunes too.
			u.Object["status"] = map[string]any{"ready": true, "phase": "x"}
			data, _ := json.Marshal(u.Object)
			must(e, req(http.MethodPut).Name("g").SubResource("status").Body(data).Do(e.ctx).Into(&u))
			if st, _, _ := unstructured.NestedMap(u.Object, "status"); len(st) != 1 || st["ready"] != true {
				e.Fatalf("status after update: %v", st)
			}
		}},
		{"CustomResourceDefaultsAreApplied", func(e *env) {
			req := e.gadgets()
			var u unstructured.Unstructured
			must(e, req(http.MethodPost).Body(customResource("Gadget", "g", map[string]any{
				"size": 1, "ports": []any{map[string]any{"port": 80}, map[string]any{"port": 53, "protocol": "UDP"}},
			})).Do(e.ctx).Into(&u))
			color, _, _ := unstructured.NestedString(u.Object, "spec", "color")
			ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
			if color != "red" || len(ports) != 2 || ports[0].(map[string]any)["protocol"] != "TCP" || ports[1].(map[string]any)["protocol"] != "UDP" {
				e.Fatalf("defaults: color %q ports %v", color, ports)
			}
			// A merge patch setting a defaulted field to null gets the default back.
			must(e, e.c.Patch(types.MergePatchType).Group(widgetGroup).Version("v1").Namespace(e.ns).Resource("gadgets").Name("g").
				Body([]byte(`{"spec":{"color":null}}`)).Do(e.ctx).Into(&u))
			if color, _, _ := unstructured.NestedString(u.Object, "spec", "color"); color != "red" {
				e.Fatalf("color after null patch: %q", color)
			}
		}},
		{"CustomResourceSchemaViolationsAreInvalid", func(e *env) {
			req := e.gadgets()
			for _, tc := range []struct {
				spec  map[string]any
				field string
				cause metav1.CauseType
			}{
				{map[string]any{"size": "three"}, "spec.size", metav1.CauseTypeTypeInvalid},
				{map[string]any{"size": 11}, "spec.size", metav1.CauseTypeFieldValueInvalid},
				{map[string]any{}, "spec.size", metav1.CauseTypeFieldValueRequired},
				{map[string]any{"size": 1, "color": "green"}, "spec.color", metav1.CauseTypeFieldValueNotSupported},
				{map[string]any{"size": 1, "name": "UPPER"}, "spec.name", metav1.CauseTypeFieldValueInvalid},
				{map[string]any{"size": 1, "labels": map[string]any{"a": 1}}, "spec.labels.a", metav1.CauseTypeTypeInvalid},
				{map[string]any{"size": 1, "ports": []any{map[string]any{"port": "http"}}}, "spec.ports[0].port", metav1.CauseTypeTypeInvalid},
			} {
				err := req(http.MethodPost).Body(customResource("Gadget", "bad", tc.spec)).Do(e.ctx).Error()
				se := wantStatus(e, err, 422, metav1.StatusReasonInvalid)
				found := false
				if se.ErrStatus.Details != nil {
					for _, c := range se.ErrStatus.Details.Causes {
						found = found || (c.Field == tc.field && c.Type == tc.cause)
					}
				}
				if !found {
					e.Fatalf("spec %v: want a %s cause at %s, got %+v", tc.spec, tc.cause, tc.field, se.ErrStatus.Details)
				}
			}
		}},
		{"CustomResourceListTypesAreValidated", customResourceListTypes},
		{"CustomResourceFormatsAreValidated", customResourceFormats},
		{"CustomResourceInt32OutOfRangeIsInvalid", customResourceInt32Range},
		{"CustomResourceGroupVersionGetsAnAPIService", func(e *env) {
			e.gadgets()
			var u unstructured.Unstructured
			ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
			defer cancel()
			err := kubegotest.Poll(ctx, func(ctx context.Context) error {
				return e.c.Get().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices", "v1."+widgetGroup).Do(ctx).Into(&u)
			})
			if err != nil {
				e.Fatalf("APIService v1.%s: %v", widgetGroup, err)
			}
			spec, _, _ := unstructured.NestedMap(u.Object, "spec")
			want := map[string]any{"group": widgetGroup, "version": "v1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(100)}
			if !reflect.DeepEqual(spec, want) || u.GetLabels()["kube-aggregator.kubernetes.io/automanaged"] != "true" {
				e.Fatalf("APIService spec %v labels %v", spec, u.GetLabels())
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			if len(conds) != 1 || conds[0].(map[string]any)["reason"] != "Local" || conds[0].(map[string]any)["status"] != "True" {
				e.Fatalf("APIService status %v", conds)
			}
		}},
		{"CustomResourceUpdateRequiresResourceVersion", func(e *env) {
			req := e.widgets()
			must(e, req(http.MethodPost).Body(widget("w", map[string]any{"size": 1})).Do(e.ctx).Error())
			err := req(http.MethodPut).Name("w").Body(widget("w", map[string]any{"size": 2})).Do(e.ctx).Error()
			wantStatus(e, err, 422, metav1.StatusReasonInvalid)
		}},
		{"DeleteCollectionHonoursLabelSelector", func(e *env) {
			e.configMap("a", nil, map[string]string{"x": "1"})
			e.configMap("b", nil, map[string]string{"x": "1"})
			e.configMap("c", nil, nil)
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "x=1").Do(e.ctx).Error())
			var list corev1.ConfigMapList
			must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Do(e.ctx).Into(&list))
			names := listNames(list.Items)
			if slices.Contains(names, "a") || slices.Contains(names, "b") || !slices.Contains(names, "c") {
				e.Fatalf("left %v", names)
			}
		}},
		{"DiscoveryServesResources", func(e *env) {
			var rl metav1.APIResourceList
			must(e, e.c.Get().AbsPath("/api/v1").Do(e.ctx).Into(&rl))
			found := false
			for _, r := range rl.APIResources {
				if r.Name == "pods" && r.Namespaced && r.Kind == "Pod" && slices.Contains(r.Verbs, "watch") {
					found = true
				}
			}
			if !found {
				e.Fatal("pods not in /api/v1")
			}
			var gl metav1.APIGroupList
			must(e, e.c.Get().AbsPath("/apis").Do(e.ctx).Into(&gl))
			ok := false
			for _, g := range gl.Groups {
				if g.Name == "apps" && g.PreferredVersion.Version == "v1" {
					ok = true
				}
			}
			if !ok {
				e.Fatal("apps/v1 not preferred in /apis")
			}
			raw, err := e.c.Get().AbsPath("/apis").Accept("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").DoRaw(e.ctx)
			must(e, err)
			var agg struct {
				Kind  string `json:"kind"`
				Items []struct {
					Metadata struct{ Name string } `json:"metadata"`
				} `json:"items"`
			}
			must(e, json.Unmarshal(raw, &agg))
			if agg.Kind != "APIGroupDiscoveryList" || len(agg.Items) == 0 {
				e.Fatalf("aggregated discovery kind %q with %d groups", agg.Kind, len(agg.Items))
			}
		}},
		{"OwnerDeletionCascadesToDependents", func(e *env) {
			owner := e.configMap("owner", nil, nil)
			dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dep", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(dep).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("owner").Do(e.ctx).Error())
			_, err := e.getConfigMap("dep")
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"OrphanDeletionKeepsDependents", func(e *env) {
			owner := e.configMap("owner", nil, nil)
			dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dep", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(dep).Do(e.ctx).Error())
			must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("owner").Param("propagationPolicy", "Orphan").Do(e.ctx).Error())
			got, err := e.getConfigMap("dep")
			must(e, err)
			if len(got.OwnerReferences) != 0 {
				e.Fatalf("ownerReferences %v left", got.OwnerReferences)
			}
		}},
		{"NamespaceDeletionRemovesContents", func(e *env) {
			e.configMap("a", nil, nil)
			must(e, e.c.Delete().Resource("namespaces").Name(e.ns).Do(e.ctx).Error())
			err := e.c.Get().Resource("namespaces").Name(e.ns).Do(e.ctx).Error()
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
			_, err = e.getConfigMap("a")
			wantStatus(e, err, 404, metav1.StatusReasonNotFound)
		}},
		{"CreateInTerminatingNamespaceIsForbidden", func(e *env) {
			hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hold", Finalizers: []string{"example.com/hold"}}}
			must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(hold).Do(e.ctx).Error())
			must(e, e.c.Delete().Resource("namespaces").Name(e.ns).Do(e.ctx).Error())
			var ns corev1.Namespace
			must(e, e.c.Get().Resource("namespaces").Name(e.ns).Do(e.ctx).Into(&ns))
			if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
				e.Fatalf("namespace after delete: deletionTimestamp=%v phase=%s", ns.DeletionTimestamp, ns.Status.Phase)
			}
			err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}).Do(e.ctx).Error()
			wantStatus(e, err, 403, metav1.StatusReasonForbidden)
			got, err := e.getConfigMap("hold")
			if err == nil {
				got.Finalizers = nil
				_ = e.c.Put().Namespace(e.ns).Resource("configmaps").Name("hold").Body(got).Do(e.ctx).Error()
			}
		}},
	}
}

func listNames(items []corev1.ConfigMap) []string {
	var out []string
	for _, i := range items {
		out = append(out, i.Name)
	}
	return out
}
