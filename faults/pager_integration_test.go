package faults_test

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/testenv"
)

// Scenario 4: a continue token expires (etcd compacted past it) in the
// middle of client.Resource[T].All. Without Snapshot, All restarts and
// yields every surviving object exactly once; with Snapshot it ends with
// *ExpiredError.
func testExpiredContinue(t *testing.T, cp *testenv.ControlPlane) {
	tc := newClient(t, cp.Config())
	ns := newNamespace(t, tc)
	cms := client.Typed[*corev1.ConfigMap](tc).Namespace(ns)
	const n = 60
	for i := range n {
		if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// expire writes, then compacts etcd at the newest revision, so the
	// continue token of the page just read is gone.
	round := 0
	expire := func() {
		round++
		var last string
		for i := range 5 {
			o, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("new-%d-%d", round, i)}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			last = o.ResourceVersion
		}
		if err := compact(t.Context(), cp.EtcdEndpoint(), last); err != nil {
			t.Fatal(err)
		}
	}
	for _, snapshot := range []bool{false, true} {
		t.Run(fmt.Sprintf("snapshot=%v", snapshot), func(t *testing.T) {
			cnt := &counter{}
			pc := client.Typed[*corev1.ConfigMap](newClient(t, cnt.wrap(cp.Config()))).Namespace(ns)
			seen := map[string]int{}
			var endErr error
			i := 0
			for o, err := range pc.All(t.Context(), client.AllOptions{List: metav1.ListOptions{Limit: 10}, Snapshot: snapshot}) {
				if err != nil {
					endErr = err
					break
				}
				seen[o.Name]++
				i++
				if i == 15 {
					expire()
				}
			}
			t.Logf("yielded %d objects (%d distinct) in %d LIST requests, end: %v", i, len(seen), cnt.lists.Load(), endErr)
			if snapshot {
				var ee *client.ExpiredError
				if !errors.As(endErr, &ee) || !errors.Is(endErr, client.ErrSnapshotExpired) {
					t.Errorf("snapshot list ended with %v, want *client.ExpiredError", endErr)
				}
				return
			}
			if endErr != nil {
				t.Fatalf("All ended with %v", endErr)
			}
			for j := range n {
				name := fmt.Sprintf("cm-%02d", j)
				if seen[name] != 1 {
					t.Errorf("%s yielded %d times, want once", name, seen[name])
				}
			}
			for name, k := range seen {
				if k > 1 {
					t.Errorf("%s yielded %d times", name, k)
				}
			}
			if cnt.lists.Load() < 3 {
				t.Errorf("%d LISTs: the expired token was not hit", cnt.lists.Load())
			}
		})
	}
}
