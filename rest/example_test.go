package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/rest"
)

// A stand-in API server for the example: one ConfigMap, everything else 404.
func fakeAPIServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v1/namespaces/demo/configmaps/settings" {
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"demo"},"data":{"color":"blue"}}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":"not found"}`)
	}))
}

func Example() {
	srv := fakeAPIServer()
	defer srv.Close()

	c, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	// GET /api/v1/namespaces/demo/configmaps/settings, decoded into a typed
	// object whatever the wire format.
	var cm corev1.ConfigMap
	err = c.Get().Namespace("demo").Resource("configmaps").Name("settings").
		Params(&metav1.GetOptions{}).
		Do(ctx).Into(&cm)
	fmt.Println(cm.Name, cm.Data["color"], err)

	// Every non-2xx answer is an *apierrors.StatusError.
	err = c.Get().Namespace("demo").Resource("configmaps").Name("missing").Do(ctx).Error()
	fmt.Println(apierrors.IsNotFound(err))
	// Output:
	// settings blue <nil>
	// true
}
