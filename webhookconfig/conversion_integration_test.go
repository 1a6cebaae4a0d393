package webhookconfig_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/conversion"
	"github.com/kubego/kubego/webhookconfig"
)

// GadgetV1 has its size in centimetres.
type GadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

func (g *GadgetV1) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

// GadgetV2 has its length with a unit.
type GadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Length string `json:"length,omitempty"`
	} `json:"spec,omitempty"`
}

func (g *GadgetV2) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

// A CRD's conversion webhook registered through a Set: testenv sets the
// CRD's conversion from the Set's configurations (no caBundle), the
// BundleUpdater adds the bundle of the CA the server's certificate comes
// from, and kube-apiserver then converts through the webhook.
func TestIntegrationConversionWebhookWithProvisionedCertificate(t *testing.T) {
	cp := testenv.Shared(t)
	const group = "gadgets.webhookconfig.test"
	v1 := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	reg := client.NewRegistry()
	for _, v := range []string{"v1", "v2"} {
		m := client.Mapping{Resource: v1.GroupResource().WithVersion(v), Kind: schema.GroupVersionKind{Group: group, Version: v, Kind: "Gadget"}, Namespaced: true}
		if v == "v1" {
			client.RegisterMapping[*GadgetV1](reg, m)
		} else {
			client.RegisterMapping[*GadgetV2](reg, m)
		}
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	cli := client.New(rc, client.Options{Registry: reg})
	ctx := t.Context()

	schemaOf := func(props map[string]any) map[string]any {
		return map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
			"spec": map[string]any{"type": "object", "properties": props},
		}}}
	}
	crdName := "gadgets." + group
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": crdName},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": schemaOf(map[string]any{"size": map[string]any{"type": "integer"}})},
				map[string]any{"name": "v2", "served": true, "storage": false, "schema": schemaOf(map[string]any{"length": map[string]any{"type": "string"}})},
			},
		},
	}
	if err := cp.InstallCRDObjects(ctx, crd); err != nil {
		t.Fatal(err)
	}
	crds := client.TypedMapping[*unstructured.Unstructured](cli, client.Mapping{
		Resource: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		Kind:     schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	})
	t.Cleanup(func() { _ = crds.Delete(context.Background(), crdName, metav1.DeleteOptions{}) })

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webhookconfig-conv-"}}
	if ns, err = client.Typed[*corev1.Namespace](cli).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](cli).Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})

	log := kubegotest.Logger(t, nil)
	provisioner, err := webhookconfig.NewCertificates(cli, webhookconfig.CertificatesOptions{
		Namespace: ns.Name, Service: "gadgets-webhook", IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := webhook.New(webhook.Options{Listener: ln, GetCertificate: provisioner.GetCertificate, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := &countingMux{srv: srv, calls: map[string]*atomic.Int64{}}
	set := webhookconfig.NewSet("gadgets", mux)
	wh := conversion.New(conversion.Options{})
	conversion.Register(wh, group+"/v1", group+"/v2", func(_ context.Context, in *GadgetV1, out *GadgetV2) error {
		out.ObjectMeta = in.ObjectMeta
		out.Spec.Length = fmt.Sprintf("%dcm", in.Spec.Size)
		return nil
	})
	conversion.Register(wh, group+"/v2", group+"/v1", func(_ context.Context, in *GadgetV2, out *GadgetV1) error {
		out.ObjectMeta = in.ObjectMeta
		_, err := fmt.Sscanf(in.Spec.Length, "%dcm", &out.Spec.Size)
		return err
	})
	webhookconfig.Convert[GadgetV1](set, "/convert", wh)
	kubegotest.Start(t, provisioner)
	kubegotest.Start(t, srv)
	<-srv.Serving()

	cfgs, err := set.Configurations(ctx, cli, webhookconfig.Target{URL: "https://" + srv.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	if cfgs.Mutating != nil || cfgs.Validating != nil || len(cfgs.Conversions) != 1 || cfgs.Conversions[0].CRD != crdName {
		t.Fatalf("configurations %+v, want the conversion of %s only", cfgs, crdName)
	}
	if err := cp.InstallWebhookConfigurations(ctx, cfgs); err != nil {
		t.Fatal(err)
	}
	updater, err := webhookconfig.NewBundleUpdater(cli, provisioner, webhookconfig.BundleOptions{CRDs: []string{crdName}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	kubegotest.Start(t, updater)

	gadgets := client.Typed[*GadgetV1](cli).Namespace(ns.Name)
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		g := &GadgetV1{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
		g.Spec.Size = 3
		_, err := gadgets.Create(ctx, g, metav1.CreateOptions{})
		return err
	})
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		got, err := client.Typed[*GadgetV2](cli).Namespace(ns.Name).Get(ctx, "a", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got.Spec.Length != "3cm" {
			return fmt.Errorf("read at v2 with length %q, want 3cm", got.Spec.Length)
		}
		return nil
	})
	if n := mux.called("/convert"); n == 0 {
		t.Fatal("the conversion webhook was never called")
	}
	obj, err := crds.Get(ctx, crdName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b64, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
	if bundle, _ := provisioner.Bundle(); b64 != base64.StdEncoding.EncodeToString(bundle) {
		t.Fatal("the CRD's conversion webhook does not trust the provisioned bundle")
	}
}
