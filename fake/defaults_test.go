package fake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// A kind kube-apiserver defaults and the fake does not (FlowSchema) is
// stored as written by default and refused under RefuseUndefaulted, over
// HTTP and through Add; kinds the fake defaults are stored either way.
func TestRefuseUndefaulted(t *testing.T) {
	fs := func(name string) *flowcontrolv1.FlowSchema {
		return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"}}}
	}
	for _, refuse := range []bool{false, true} {
		name := "stores undefaulted kinds"
		if refuse {
			name = "refuses undefaulted kinds"
		}
		t.Run(name, func(t *testing.T) {
			srv := fake.NewServer(fake.Options{RefuseUndefaulted: refuse})
			defer srv.Close()
			c, err := rest.NewClient(srv.Config())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			err = c.Post().Group("flowcontrol.apiserver.k8s.io").Version("v1").Resource("flowschemas").Body(fs("http")).Do(ctx).Error()
			addErr := srv.Add(fs("added"))
			if !refuse {
				if err != nil || addErr != nil {
					t.Fatalf("create: %v; Add: %v", err, addErr)
				}
			} else {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusNotImplemented ||
					!strings.Contains(se.ErrStatus.Message, "FlowSchema") || !strings.Contains(se.ErrStatus.Message, "RefuseUndefaulted") {
					t.Fatalf("create: got %v, want 501 naming FlowSchema and RefuseUndefaulted", err)
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
