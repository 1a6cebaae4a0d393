package fake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// A kind kube-apiserver defaults and the fake does not (a Deployment of
// apps/v1beta2, served with AllVersions) is stored as written by default
// and refused under RefuseUndefaulted, over HTTP and through Add; kinds
// the fake defaults are stored either way.
func TestRefuseUndefaulted(t *testing.T) {
	beta := func(name string) *appsv1beta2.Deployment {
		d := &appsv1beta2.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: appsv1beta2.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
		d.Spec.Template.Labels = map[string]string{"a": "b"}
		return d
	}
	for _, refuse := range []bool{false, true} {
		name := "stores undefaulted kinds"
		if refuse {
			name = "refuses undefaulted kinds"
		}
		t.Run(name, func(t *testing.T) {
			srv := fake.NewServer(fake.Options{RefuseUndefaulted: refuse, AllVersions: true})
			defer srv.Close()
			c, err := rest.NewClient(srv.Config())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			err = c.Post().Group("apps").Version("v1beta2").Namespace("default").Resource("deployments").Body(beta("http")).Do(ctx).Error()
			addErr := srv.Add(beta("added"))
			if !refuse {
				if err != nil || addErr != nil {
					t.Fatalf("create: %v; Add: %v", err, addErr)
				}
			} else {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusNotImplemented ||
					!strings.Contains(se.ErrStatus.Message, "apps/v1beta2 Deployment") || !strings.Contains(se.ErrStatus.Message, "RefuseUndefaulted") {
					t.Fatalf("create: got %v, want 501 naming apps/v1beta2 Deployment and RefuseUndefaulted", err)
				}
				if !errors.Is(addErr, fake.ErrNotDefaulted) {
					t.Fatalf("Add: got %v, want ErrNotDefaulted", addErr)
				}
			}
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}
			d.Spec.Template.Labels = map[string]string{"a": "b"}
			var out appsv1.Deployment
			if err := c.Post().Group("apps").Version("v1").Namespace("default").Resource("deployments").Body(d).Do(ctx).Into(&out); err != nil {
				t.Fatalf("create a defaulted kind: %v", err)
			}
			if out.Spec.Replicas == nil || *out.Spec.Replicas != 1 {
				t.Fatalf("replicas %v, want 1", out.Spec.Replicas)
			}
		})
	}
}
