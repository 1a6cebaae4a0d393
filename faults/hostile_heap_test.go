package faults_test

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

// Hostile 2c: a LIST body that does not end costs the client about the
// body limit in memory, not a multiple of it: the bytes a List allocates
// (an upper bound of what it holds at any time) stay within 1.2 times
// MaxResponseBytes.
func TestHostileEndlessListMemory(t *testing.T) {
	const limit = 64 << 20
	hs := newHostile(t, func(w http.ResponseWriter, r *http.Request) { endlessList(w, 4*limit) })
	cfg := hs.config(nil)
	withBodyLimit(cfg, limit)
	c := hostileClient(t, cfg)
	var err error
	alloc := allocated(func() {
		_, err = client.Typed[*corev1.ConfigMap](c).Namespace("a").List(t.Context(), metav1.ListOptions{})
	})
	if !isLimit(err, "MaxResponseBytes") {
		t.Fatalf("List of an endless body: err = %v, want a MaxResponseBytes limit", err)
	}
	if alloc > limit*12/10 {
		t.Errorf("allocated %d MiB for a body limit of %d MiB, want at most 1.2 times the limit", alloc>>20, limit>>20)
	}
	t.Logf("refused after allocating %d MiB (limit %d MiB)", alloc>>20, limit>>20)
}

// BenchmarkHostileListHeap measures the heap of one List: an endless body
// stopped at the default MaxResponseBytes, and the largest legitimate LIST
// (100,000 realistic Pods, in one page and in pages of 500), with the
// default Config. It reports the peak of live heap objects sampled during
// the call (peak-MiB, over the heap before it) and the bytes allocated
// (alloc-MiB). Run it alone: -run '^$' -bench HostileListHeap -benchtime 1x.
func BenchmarkHostileListHeap(b *testing.B) {
	const pods = 100_000
	type body struct {
		contentType string
		pages       [][]byte // the pages of 500 Pods; whole is all of them
		whole       []byte
	}
	encode := func(contentType string) body {
		bd := body{contentType: contentType}
		encodeList := func(items []corev1.Pod, cont string) []byte {
			list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "100", Continue: cont}, Items: items}
			var buf bytes.Buffer
			var err error
			if contentType == "application/json" {
				err = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Default(), scheme.Default(), json.SerializerOptions{}).Encode(list, &buf)
			} else {
				err = protobuf.NewSerializer(scheme.Default(), scheme.Default()).Encode(list, &buf)
			}
			if err != nil {
				b.Fatal(err)
			}
			return buf.Bytes()
		}
		all := realisticPods(pods)
		bd.whole = encodeList(all, "")
		for i := 0; i < pods; i += 500 {
			cont := ""
			if i+500 < pods {
				cont = strconv.Itoa(i + 500)
			}
			bd.pages = append(bd.pages, encodeList(all[i:i+500], cont))
		}
		return bd
	}
	serve := func(bd *body) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", bd.contentType)
			q := r.URL.Query()
			if q.Get("limit") == "" {
				w.Write(bd.whole)
				return
			}
			from, _ := strconv.Atoi(q.Get("continue"))
			w.Write(bd.pages[from/500])
		}
	}
	listAll := func(b *testing.B, c *client.Client, limit int64) int {
		n := 0
		var keep []*client.List[*corev1.Pod]
		opts := metav1.ListOptions{Limit: limit}
		for {
			l, err := client.Typed[*corev1.Pod](c).List(b.Context(), opts)
			if err != nil {
				b.Fatal(err)
			}
			keep = append(keep, l)
			n += len(l.Items)
			if l.Continue == "" {
				runtime.KeepAlive(keep)
				return n
			}
			opts.Continue = l.Continue
		}
	}
	for _, contentType := range []string{"application/vnd.kubernetes.protobuf", "application/json"} {
		bd := encode(contentType)
		for _, limit := range []int64{0, 500} {
			name := fmt.Sprintf("100k Pods %s one page", contentType)
			if limit > 0 {
				name = fmt.Sprintf("100k Pods %s pages of %d", contentType, limit)
			}
			b.Run(name, func(b *testing.B) {
				hs := newHostile(b, serve(&bd))
				c := hostileClient(b, &rest.Config{Host: hs.srv.URL})
				b.Logf("one page is %d MiB", len(bd.whole)>>20)
				for b.Loop() {
					var n int
					reportHeap(b, func() { n = listAll(b, c, limit) })
					if n != pods {
						b.Fatalf("listed %d Pods, want %d", n, pods)
					}
				}
			})
		}
	}
	b.Run("endless LIST at the default limit", func(b *testing.B) {
		hs := newHostile(b, func(w http.ResponseWriter, r *http.Request) { endlessList(w, 2<<30) })
		c := hostileClient(b, hs.config(nil))
		for b.Loop() {
			reportHeap(b, func() {
				_, err := client.Typed[*corev1.ConfigMap](c).Namespace("a").List(b.Context(), metav1.ListOptions{})
				if !isLimit(err, "MaxResponseBytes") {
					b.Fatalf("err = %v, want a MaxResponseBytes limit", err)
				}
			})
		}
	})
}

// reportHeap runs f and reports the peak of live heap objects while it
// ran, sampled every millisecond, over the heap before (peak-MiB) and the
// bytes it allocated (alloc-MiB).
func reportHeap(b *testing.B, f func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			v := read()
			mu.Lock()
			peak = max(peak, v)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	alloc := allocated(f)
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-MiB")
	b.ReportMetric(float64(alloc)/(1<<20), "alloc-MiB")
}

// realisticPods builds n Pods shaped like a Deployment's: two containers
// with eight env vars, ports, requests and limits, labels, annotations,
// one managedFields entry and a status with conditions.
func realisticPods(n int) []corev1.Pod {
	out := make([]corev1.Pod, n)
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := range out {
		var containers []corev1.Container
		for c := range 2 {
			var env []corev1.EnvVar
			for e := range 8 {
				env = append(env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", e), Value: fmt.Sprintf("value-%d-%d", i, e)})
			}
			containers = append(containers, corev1.Container{
				Name: fmt.Sprintf("c%d", c), Image: "registry.example/app:1.2.3", Env: env,
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "token", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			})
		}
		out[i] = corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("web-7d9f8c6b5d-%05d", i), Namespace: "bench", UID: "0123e4567-e89b-12d3-a456-426614174000",
				ResourceVersion: strconv.Itoa(i + 1), CreationTimestamp: now,
				Labels:          map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": "7d9f8c6b5d"},
				Annotations:     map[string]string{"example.com/a": "x", "example.com/b": "y"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f8c6b5d", UID: "1123e4567-e89b-12d3-a456-426614174000"}},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now,
					FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{},"f:tier":{}}},"f:spec":{"f:containers":{}}}`)}}},
			},
			Spec: corev1.PodSpec{Containers: containers, NodeName: fmt.Sprintf("node-%d", i%100), ServiceAccountName: "web",
				Volumes: []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255), StartTime: &now,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}}},
		}
	}
	return out
}
