package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

// pagedServer serves n ConfigMaps in pages of the requested limit, with
// continue tokens holding the next offset. expireAt makes the request
// continuing at that offset answer 410 once.
func pagedServer(f *fakeServer, n int, expireAt int) {
	expired := false
	f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		start := 0
		if c := q.Get("continue"); c != "" {
			start, _ = strconv.Atoi(c)
			if start == expireAt && !expired {
				expired = true
				writeJSON(w, 410, status(410, "Expired"))
				return
			}
		}
		end := min(start+limit, n)
		items := []any{}
		for i := start; i < end; i++ {
			items = append(items, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%03d", i), "namespace": "ns"}})
		}
		meta := map[string]any{"resourceVersion": "1"}
		if end < n {
			meta["continue"] = strconv.Itoa(end)
		}
		writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta, "items": items})
	}
}

func collect(t *testing.T, seq func(func(*corev1.ConfigMap, error) bool)) ([]string, error) {
	t.Helper()
	var names []string
	for cm, err := range seq {
		if err != nil {
			return names, err
		}
		names = append(names, cm.Name)
	}
	return names, nil
}

func TestAllFollowsContinueTokens(t *testing.T) {
	f, c := newFake(t, client.Options{})
	pagedServer(f, 25, -1)
	names, err := collect(t, client.Typed[*corev1.ConfigMap](c).Namespace("ns").All(context.Background(), client.AllOptions{List: metav1.ListOptions{Limit: 10}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 25 || names[24] != "cm-024" {
		t.Fatalf("got %d names %v", len(names), names)
	}
	if n := len(f.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

func TestAllRestartsOnExpiredTokenWithoutDuplicates(t *testing.T) {
	f, c := newFake(t, client.Options{})
	pagedServer(f, 25, 20)
	names, err := collect(t, client.Typed[*corev1.ConfigMap](c).Namespace("ns").All(context.Background(), client.AllOptions{List: metav1.ListOptions{Limit: 10}}))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Fatalf("%s yielded twice", n)
		}
		seen[n] = true
	}
	if len(names) != 25 {
		t.Fatalf("got %d names, want 25", len(names))
	}
	reqs := f.requests()
	// 0-10, 10-20, 410, restart 0-10, 10-20, 20-25.
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
}

func TestAllSnapshotEndsWithExpiredError(t *testing.T) {
	f, c := newFake(t, client.Options{})
	pagedServer(f, 25, 10)
	names, err := collect(t, client.Typed[*corev1.ConfigMap](c).Namespace("ns").All(context.Background(), client.AllOptions{List: metav1.ListOptions{Limit: 10}, Snapshot: true}))
	var ee *client.ExpiredError
	if !errors.As(err, &ee) || !errors.Is(err, client.ErrSnapshotExpired) || !apierrors.IsResourceExpired(err) {
		t.Fatalf("error %v, want *ExpiredError wrapping a 410", err)
	}
	if len(names) != 10 || ee.Yielded != 10 {
		t.Fatalf("yielded %d (%d recorded) before the error, want 10", len(names), ee.Yielded)
	}
}

func TestAllStopsWhenTheLoopBreaks(t *testing.T) {
	f, c := newFake(t, client.Options{})
	pagedServer(f, 25, -1)
	for range client.Typed[*corev1.ConfigMap](c).Namespace("ns").All(context.Background(), client.AllOptions{List: metav1.ListOptions{Limit: 10}}) {
		break
	}
	if n := len(f.requests()); n != 1 {
		t.Fatalf("%d requests after break, want 1", n)
	}
}
