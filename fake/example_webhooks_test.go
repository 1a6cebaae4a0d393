package fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
)

// An operator's validating webhook, called by the fake in process: the
// configuration is created through the API as on a cluster, and its URL
// is mapped to the webhook's handler.
func ExampleOptions_webhooks() {
	validate := admission.New(admission.Validating[corev1.ConfigMap](admission.ValidatorFuncs[*corev1.ConfigMap]{
		Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			if cm.Data["owner"] == "" {
				return nil, errors.New("data.owner is required")
			}
			return nil, nil
		},
	}, admission.TypedOptions{}), admission.Options{})
	srv := fake.NewServer(fake.Options{Webhooks: map[string]http.Handler{"https://webhooks.example/validate": validate}})
	defer srv.Close()
	c, err := rest.NewClient(srv.InProcessConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	url, none := "https://webhooks.example/validate", admissionregistrationv1.SideEffectClassNone
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "configmaps"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "owner.configmaps.example",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource("validatingwebhookconfigurations").Body(cfg).Do(ctx).Error(); err != nil {
		fmt.Println(err)
		return
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}
	err = c.Post().Namespace("default").Resource("configmaps").Body(cm).Do(ctx).Error()
	fmt.Println(err)
	// Output:
	// admission webhook "owner.configmaps.example" denied the request: data.owner is required
}
