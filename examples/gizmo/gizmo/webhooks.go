package gizmo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
)

// The paths the webhooks are served at.
const (
	DefaultPath  = "/default-gizmos"
	ValidatePath = "/validate-gizmos"
	ConvertPath  = "/convert-gizmos"
)

// MaxCentimetres is the longest gizmo the validator admits.
const MaxCentimetres = 500

// Default gives a gizmo without color the color grey.
func Default(_ context.Context, g *Gizmo) error {
	if g.Spec.Color == "" {
		g.Spec.Color = "grey"
	}
	return nil
}

// Validator admits gizmos up to MaxCentimetres long, warns about very
// short ones, and refuses to change a color once set.
type Validator struct{}

// ValidateCreate checks the length.
func (Validator) ValidateCreate(_ context.Context, g *Gizmo) (admission.Warnings, error) {
	return checkLength(g)
}

// ValidateUpdate checks the length and that the color stays.
func (Validator) ValidateUpdate(_ context.Context, old, g *Gizmo) (admission.Warnings, error) {
	if old.Spec.Color != "" && g.Spec.Color != old.Spec.Color {
		return nil, fmt.Errorf("spec.color is immutable once set (was %s)", old.Spec.Color)
	}
	return checkLength(g)
}

// ValidateDelete admits every delete.
func (Validator) ValidateDelete(context.Context, *Gizmo) (admission.Warnings, error) { return nil, nil }

func checkLength(g *Gizmo) (admission.Warnings, error) {
	cm, err := centimetres(g.Spec.Length)
	if err != nil {
		return nil, fmt.Errorf("spec.length: %w", err)
	}
	if cm > MaxCentimetres {
		return nil, fmt.Errorf("spec.length %s exceeds the maximum of %dcm", g.Spec.Length, MaxCentimetres)
	}
	if cm < 1 {
		return admission.Warnings{"a gizmo shorter than 1cm is hard to find"}, nil
	}
	return nil, nil
}

// centimetres parses "30cm" or "2m"; the empty length is 0.
func centimetres(length string) (int, error) {
	switch {
	case length == "":
		return 0, nil
	case strings.HasSuffix(length, "cm"):
		return strconv.Atoi(strings.TrimSuffix(length, "cm"))
	case strings.HasSuffix(length, "m"):
		m, err := strconv.Atoi(strings.TrimSuffix(length, "m"))
		return m * 100, err
	}
	return 0, fmt.Errorf("%q is not a length in cm or m", length)
}

// ToV2 converts a v1 gizmo to v2.
func ToV2(_ context.Context, in *GizmoV1, out *Gizmo) error {
	out.ObjectMeta = in.ObjectMeta
	out.Spec.Color = in.Spec.Color
	if in.Spec.Size != 0 {
		out.Spec.Length = strconv.Itoa(in.Spec.Size) + "cm"
	}
	return nil
}

// ToV1 converts a v2 gizmo to v1.
func ToV1(_ context.Context, in *Gizmo, out *GizmoV1) error {
	out.ObjectMeta = in.ObjectMeta
	out.Spec.Color = in.Spec.Color
	cm, err := centimetres(in.Spec.Length)
	if err != nil {
		return fmt.Errorf("spec.length: %w", err)
	}
	out.Spec.Size = cm
	return nil
}

// Serve registers the three webhooks on srv.
func Serve(srv *webhook.Server, opts admission.Options) {
	kind := admission.TypedOptions{Kind: schema.GroupKind{Group: Group, Kind: "Gizmo"}}
	srv.Handle(DefaultPath, admission.New(admission.Defaulting[Gizmo](admission.DefaulterFunc[*Gizmo](Default), kind), opts))
	srv.Handle(ValidatePath, admission.New(admission.Validating[Gizmo](Validator{}, kind), opts))
	conv := conversion.New(conversion.Options{Hub: V2.GroupVersion().String(), Logger: opts.Logger})
	conversion.Register(conv, V1.GroupVersion().String(), V2.GroupVersion().String(), ToV2)
	conversion.Register(conv, V2.GroupVersion().String(), V1.GroupVersion().String(), ToV1)
	srv.Handle(ConvertPath, conv)
}

// Webhooks is the registration of the admission webhooks, for a server at
// url whose certificate caBundle signs. They are written for v2; requests
// for v1 reach them converted (matchPolicy Equivalent).
func Webhooks(url string, caBundle []byte) testenv.Webhooks {
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{Group}, APIVersions: []string{"v2"}, Resources: []string{"gizmos"}},
	}}
	return testenv.Webhooks{
		Name: "gizmos." + Group, URL: url, CABundle: caBundle,
		Mutating:   []testenv.AdmissionWebhook{{Name: "default.gizmos." + Group, Path: DefaultPath, Rules: rules}},
		Validating: []testenv.AdmissionWebhook{{Name: "validate.gizmos." + Group, Path: ValidatePath, Rules: rules}},
	}
}
