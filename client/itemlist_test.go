package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

// protoBody encodes obj as kube-apiserver does in protobuf.
func protoBody(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Default(), scheme.Default()).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A client whose rest client names no scheme lists a built-in kind without
// its list Go type: in protobuf, asked for because the items have protobuf
// methods, and item by item.
func TestListOfBuiltinKindWithoutSchemeDecodesEachItem(t *testing.T) {
	list := &appsv1.DeploymentList{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "more"},
		Items:    []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", Labels: map[string]string{"x": "y"}}}},
	}
	other := &appsv1.ReplicaSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSetList"}, Items: []appsv1.ReplicaSet{{ObjectMeta: metav1.ObjectMeta{Name: "r"}}}}
	tests := []struct {
		name      string
		body      []byte
		wantNames []string
		wantErr   bool
	}{
		{"protobuf list", protoBody(t, list), []string{"a", "b"}, false},
		{"empty protobuf list", protoBody(t, &appsv1.DeploymentList{TypeMeta: list.TypeMeta, ListMeta: list.ListMeta}), nil, false},
		{"protobuf list of another kind", protoBody(t, other), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := newFake(t, client.Options{})
			var accept string
			f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
				accept = r.Header.Get("Accept")
				w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
				_, _ = w.Write(tt.body)
			}
			var names []string
			var lm metav1.ListMeta
			lst, err := client.Typed[*appsv1.Deployment](c).Namespace("ns").List(context.Background(), metav1.ListOptions{})
			if lst != nil {
				lm = lst.ListMeta
				for _, d := range lst.Items {
					names = append(names, d.Name)
				}
			}
			if accept != "application/vnd.kubernetes.protobuf, application/json" {
				t.Errorf("Accept = %q, want protobuf first", accept)
			}
			if tt.wantErr {
				var de *rest.DecodeError
				if !errors.As(err, &de) || names != nil {
					t.Fatalf("ListEach = %v, %v; want a *rest.DecodeError and no items", names, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(names) != len(tt.wantNames) || (len(names) > 0 && (names[0] != "a" || names[1] != "b")) {
				t.Errorf("items %v, want %v", names, tt.wantNames)
			}
			if lm.ResourceVersion != "9" || lm.Continue != "more" {
				t.Errorf("list meta %+v", lm)
			}
		})
	}
}
