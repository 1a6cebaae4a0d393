package testenv

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhookconfig"
)

// InstallWebhookConfigurations creates or updates (server-side apply) the
// webhook configurations a webhookconfig.Set made, and sets the conversion
// webhook of each CRD they name (already installed). The handlers are
// then registered once, in Go, for the cluster and the test alike: make
// them with a Target whose URL is the test server's on loopback
// (kube-apiserver here reaches no Service). kube-apiserver starts calling
// the webhooks shortly after; UninstallWebhooks(set name) removes the
// admission configurations.
func (cp *ControlPlane) InstallWebhookConfigurations(ctx context.Context, cfgs *webhookconfig.Configurations) error {
	if cfgs == nil || (cfgs.Mutating == nil && cfgs.Validating == nil && len(cfgs.Conversions) == 0) {
		return fmt.Errorf("%w: no configurations", ErrInvalidWebhook)
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	if m := cfgs.Mutating; m != nil {
		if err := apply(ctx, rc, "mutatingwebhookconfigurations", m.Name, m); err != nil {
			return err
		}
	}
	if v := cfgs.Validating; v != nil {
		if err := apply(ctx, rc, "validatingwebhookconfigurations", v.Name, v); err != nil {
			return err
		}
	}
	for _, c := range cfgs.Conversions {
		// Both url and service are written (one as null), so that a merge
		// patch replaces a clientConfig of the other form.
		cc := map[string]any{"url": c.ClientConfig.URL, "service": c.ClientConfig.Service, "caBundle": c.ClientConfig.CABundle}
		patch := map[string]any{"spec": map[string]any{"conversion": map[string]any{
			"strategy": "Webhook",
			"webhook":  map[string]any{"conversionReviewVersions": []string{"v1"}, "clientConfig": cc},
		}}}
		data, err := json.Marshal(patch)
		if err != nil {
			return fmt.Errorf("testenv: %w", err)
		}
		err = rc.Patch(types.MergePatchType).Group("apiextensions.k8s.io").Version("v1").
			Resource("customresourcedefinitions").Name(c.CRD).Body(data).Do(ctx).Error()
		if err != nil {
			return fmt.Errorf("testenv: setting the conversion webhook of CRD %s: %w", c.CRD, err)
		}
	}
	return nil
}
