package crd

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/dynamic"
)

// DefaultFieldManager is the field manager of Install's applies when
// InstallOptions names none.
const DefaultFieldManager = "kubego-crd"

// pollInterval is the pause between two checks of Wait.
const pollInterval = 100 * time.Millisecond

// InstallOptions configure Install. The zero value is ready to use.
type InstallOptions struct {
	// FieldManager owns the applied fields. Empty means
	// DefaultFieldManager.
	FieldManager string
}

// Install applies each definition (server-side apply, forced, so that a
// definition installed before is updated to this one; status is not
// sent) and then waits, as Wait does, until every one is served. defs are
// not modified. It returns the server's refusal of an apply, or the first
// *NotServedError.
func Install(ctx context.Context, c *dynamic.Client, defs []*unstructured.Unstructured, opts InstallOptions) error {
	fm := opts.FieldManager
	if fm == "" {
		fm = DefaultFieldManager
	}
	crds := c.Resource(Resource)
	for _, d := range defs {
		if _, err := check(d.Object); err != nil {
			return fmt.Errorf("crd: %w", err)
		}
		obj := d.DeepCopy()
		unstructured.RemoveNestedField(obj.Object, "status")
		unstructured.RemoveNestedField(obj.Object, "metadata", "creationTimestamp")
		if _, err := crds.Apply(ctx, obj, dynamic.ApplyOptions{FieldManager: fm, Force: true}); err != nil {
			return fmt.Errorf("crd: installing %s: %w", d.GetName(), err)
		}
	}
	for _, d := range defs {
		if err := Wait(ctx, c, d.GetName()); err != nil {
			return err
		}
	}
	return nil
}

// Wait waits until the CustomResourceDefinition name is Established and a
// LIST of each of its served versions succeeds, checking every 100ms. It
// returns a *NotServedError when ctx ends first (wrapping ctx's error),
// or at once when the server refused the definition's names.
func Wait(ctx context.Context, c *dynamic.Client, name string) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		reason, final, err := served(ctx, c, name)
		if err == nil {
			return nil
		}
		if final {
			return &NotServedError{Name: name, Reason: reason}
		}
		select {
		case <-ctx.Done():
			return &NotServedError{Name: name, Reason: reason, Err: ctx.Err()}
		case <-t.C:
		}
	}
}

// errWaiting says the definition is not served yet.
var errWaiting = errors.New("waiting")

// served checks the definition once. It returns nil when it is served;
// otherwise the reason, and whether waiting cannot help.
func served(ctx context.Context, c *dynamic.Client, name string) (reason string, final bool, err error) {
	d, err := c.Resource(Resource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "reading the definition: " + err.Error(), false, err
	}
	established := false
	conds, _, _ := unstructured.NestedSlice(d.Object, "status", "conditions")
	for _, cond := range conds {
		cm, _ := cond.(map[string]any)
		typ, _, _ := unstructured.NestedString(cm, "type")
		status, _, _ := unstructured.NestedString(cm, "status")
		msg, _, _ := unstructured.NestedString(cm, "message")
		switch {
		case typ == "NamesAccepted" && status == "False":
			return "names not accepted: " + msg, true, errWaiting
		case typ == "Established" && status == "True":
			established = true
		}
	}
	if !established {
		return "not Established yet", false, errWaiting
	}
	group, _, _ := unstructured.NestedString(d.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(d.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(d.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		version, _, _ := unstructured.NestedString(vm, "name")
		if ok, _, _ := unstructured.NestedBool(vm, "served"); !ok {
			continue
		}
		gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: plural}
		if _, err := c.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return fmt.Sprintf("listing %s: %v", gvr, err), false, err
		}
	}
	return "", false, nil
}
