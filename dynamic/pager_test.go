package dynamic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rest"
)

func pagedClient(t *testing.T, n, expireAt int) *dynamic.Resource {
	expired := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		start, _ := strconv.Atoi(q.Get("continue"))
		if q.Get("continue") != "" && start == expireAt && !expired {
			expired = true
			w.WriteHeader(410)
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": 410, "reason": "Expired"})
			return
		}
		end := min(start+limit, n)
		items := []any{}
		for i := start; i < end; i++ {
			items = append(items, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}})
		}
		meta := map[string]any{}
		if end < n {
			meta["continue"] = strconv.Itoa(end)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta, "items": items})
	}))
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return dynamic.New(rc, dynamic.Options{}).Resource(widgets).Namespace("ns")
}

func TestAllPagesAndRestarts(t *testing.T) {
	tests := []struct {
		name     string
		expireAt int
		snapshot bool
		want     int
		wantErr  bool
	}{
		{"follows continue tokens", -1, false, 25, false},
		{"restarts on 410 without duplicates", 20, false, 25, false},
		{"snapshot ends with an error", 10, true, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := pagedClient(t, 25, tt.expireAt)
			seen := map[string]bool{}
			var gotErr error
			for u, err := range r.All(context.Background(), dynamic.AllOptions{List: metav1.ListOptions{Limit: 10}, Snapshot: tt.snapshot}) {
				if err != nil {
					gotErr = err
					break
				}
				if seen[u.GetName()] {
					t.Fatalf("%s twice", u.GetName())
				}
				seen[u.GetName()] = true
			}
			if len(seen) != tt.want || (gotErr != nil) != tt.wantErr {
				t.Fatalf("%d objects, err %v", len(seen), gotErr)
			}
			if tt.wantErr && (!errors.Is(gotErr, dynamic.ErrSnapshotExpired) || !apierrors.IsResourceExpired(gotErr)) {
				t.Fatalf("error %v", gotErr)
			}
		})
	}
}
