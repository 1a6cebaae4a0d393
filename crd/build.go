package crd

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
)

// Scope is where a custom resource lives.
type Scope string

const (
	// Namespaced resources live in a namespace (the zero value).
	Namespaced Scope = "Namespaced"
	// Cluster resources live outside namespaces.
	Cluster Scope = "Cluster"
)

// Definition is a CustomResourceDefinition to build from the Go types of
// its versions (Build). Only Group, Kind and Versions are needed: the
// names default as kube-apiserver's conventions have them.
type Definition struct {
	// Group is the API group ("batch.tutorial.kubebuilder.io").
	Group string
	// Kind is the kind ("CronJob"); ListKind defaults to Kind+"List",
	// Singular to the lower-case kind and Plural to Singular+"s".
	Kind, ListKind, Singular, Plural string
	ShortNames, Categories           []string
	// Scope is Namespaced when empty.
	Scope Scope
	// Versions: at least one; exactly one has Storage unless there is only
	// one (then it is the storage version).
	Versions []Version
	// Annotations of the definition (a group under k8s.io or kubernetes.io
	// needs api-approved.kubernetes.io).
	Annotations map[string]string
	// Schema tunes the schemas of every version (descriptions,
	// declarations by path).
	Schema apischema.Options
	// Conversion, when set, has the server convert between versions by
	// calling a webhook (ConversionReview v1; see webhook/conversion).
	// Without it the versions must share one schema shape (strategy None).
	Conversion *Conversion
}

// Conversion is the webhook that converts a definition's objects between
// versions: a URL, or a Service in the cluster, and the CA bundle that
// signs its serving certificate.
type Conversion struct {
	// URL is https://host:port/path, for a webhook outside the cluster.
	URL string
	// Service names the webhook's Service instead of URL.
	Service *ServiceReference
	// CABundle is the PEM of the CA that signs the webhook's certificate.
	CABundle []byte
}

// ServiceReference is a webhook's Service in the cluster.
type ServiceReference struct {
	Namespace, Name, Path string
	// Port is 443 when zero.
	Port int32
}

// Version is one version of a Definition.
type Version struct {
	// Name is the version ("v1", "v2beta1").
	Name string
	// Type is the Go type of the resource in this version (a struct with
	// metav1.TypeMeta inline and metav1.ObjectMeta "metadata"): its schema
	// is built by apischema.Resource.
	Type reflect.Type
	// NotServed leaves the version unserved (served is the default).
	NotServed bool
	Storage   bool
	// Deprecated marks the version deprecated; DeprecationWarning replaces
	// the server's default warning.
	Deprecated         bool
	DeprecationWarning string
	// Status serves the status subresource.
	Status bool
	// Scale serves the scale subresource.
	Scale *Scale
	// PrinterColumns are the columns kubectl get shows. Their JSONPath is
	// checked against the version's schema.
	PrinterColumns []PrinterColumn
}

// Scale is the scale subresource of a version: JSON paths (".spec.replicas")
// into the resource.
type Scale struct {
	SpecReplicasPath, StatusReplicasPath, LabelSelectorPath string
}

// PrinterColumn is one additional column of kubectl get.
type PrinterColumn struct {
	Name string
	// Type is integer, number, string, boolean or date.
	Type        string
	Format      string
	Description string
	Priority    int32
	JSONPath    string
}

// ErrInvalidDefinition is wrapped by the errors of Build for a Definition
// that cannot make a valid CustomResourceDefinition.
var ErrInvalidDefinition = errors.New("invalid definition")

// TypeOf returns the reflect.Type of T, for Version.Type.
func TypeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

var dnsLabel = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// Build returns the apiextensions.k8s.io/v1 CustomResourceDefinition of d,
// each version's schema built from its Go type by apischema.Resource. An
// invalid Definition is an error wrapping ErrInvalidDefinition naming the
// field; a type without a schema or a bad declaration is apischema's
// error (*apischema.TypeError, *apischema.DeclarationError), wrapped.
func Build(d Definition) (*unstructured.Unstructured, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("crd: %s: %w: %s", d.Kind, ErrInvalidDefinition, fmt.Sprintf(format, args...))
	}
	if d.Group == "" || strings.ToLower(d.Group) != d.Group || !strings.Contains(d.Group, ".") {
		return nil, bad("group %q is not a lower-case DNS name with a dot", d.Group)
	}
	if d.Kind == "" {
		return nil, bad("no kind")
	}
	singular := or(d.Singular, strings.ToLower(d.Kind))
	plural := or(d.Plural, singular+"s")
	listKind := or(d.ListKind, d.Kind+"List")
	for _, n := range append([]string{singular, plural}, d.ShortNames...) {
		if !dnsLabel.MatchString(n) {
			return nil, bad("name %q is not a lower-case DNS label", n)
		}
	}
	scope := or(string(d.Scope), string(Namespaced))
	if scope != string(Namespaced) && scope != string(Cluster) {
		return nil, bad("scope %q is Namespaced or Cluster", d.Scope)
	}
	if len(d.Versions) == 0 {
		return nil, bad("no versions")
	}
	storage := 0
	for _, v := range d.Versions {
		if v.Storage {
			storage++
		}
	}
	if storage > 1 || (storage == 0 && len(d.Versions) > 1) {
		return nil, bad("%d storage versions: exactly one version has Storage", storage)
	}
	var versions []any
	seen := map[string]bool{}
	for _, v := range d.Versions {
		if !dnsLabel.MatchString(v.Name) || seen[v.Name] {
			return nil, bad("version name %q is not a DNS label or is repeated", v.Name)
		}
		seen[v.Name] = true
		if v.Type == nil {
			return nil, bad("version %s: no Type", v.Name)
		}
		sch, err := apischema.Resource(v.Type, d.Schema)
		if err != nil {
			return nil, fmt.Errorf("crd: %s %s: %w", d.Kind, v.Name, err)
		}
		vm, err := versionMap(v, sch, storage == 0)
		if err != nil {
			return nil, bad("version %s: %v", v.Name, err)
		}
		versions = append(versions, vm)
	}
	names := map[string]any{"kind": d.Kind, "listKind": listKind, "singular": singular, "plural": plural}
	if len(d.ShortNames) > 0 {
		names["shortNames"] = toAny(d.ShortNames)
	}
	if len(d.Categories) > 0 {
		names["categories"] = toAny(d.Categories)
	}
	spec := map[string]any{"group": d.Group, "names": names, "scope": scope, "versions": versions}
	if c := d.Conversion; c != nil {
		conv, err := conversionMap(c)
		if err != nil {
			return nil, bad("conversion: %v", err)
		}
		spec["conversion"] = conv
	}
	meta := map[string]any{"name": plural + "." + d.Group}
	if len(d.Annotations) > 0 {
		ann := map[string]any{}
		for k, v := range d.Annotations {
			ann[k] = v
		}
		meta["annotations"] = ann
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   meta,
		"spec":       spec,
	}}, nil
}

func conversionMap(c *Conversion) (map[string]any, error) {
	cfg := map[string]any{}
	switch {
	case (c.URL == "") == (c.Service == nil):
		return nil, errors.New("exactly one of URL and Service")
	case c.URL != "":
		if !strings.HasPrefix(c.URL, "https://") {
			return nil, fmt.Errorf("URL %q is not https", c.URL)
		}
		cfg["url"] = c.URL
	default:
		if c.Service.Namespace == "" || c.Service.Name == "" {
			return nil, errors.New("a Service needs a namespace and a name")
		}
		svc := map[string]any{"namespace": c.Service.Namespace, "name": c.Service.Name}
		if c.Service.Path != "" {
			svc["path"] = c.Service.Path
		}
		if c.Service.Port != 0 {
			svc["port"] = int64(c.Service.Port)
		}
		cfg["service"] = svc
	}
	if len(c.CABundle) > 0 {
		cfg["caBundle"] = base64.StdEncoding.EncodeToString(c.CABundle)
	}
	return map[string]any{"strategy": "Webhook", "webhook": map[string]any{
		"conversionReviewVersions": []any{"v1"}, "clientConfig": cfg,
	}}, nil
}

func versionMap(v Version, sch *apischema.Schema, onlyVersion bool) (map[string]any, error) {
	schemaMap := sch.Object()
	out := map[string]any{
		"name": v.Name, "served": !v.NotServed, "storage": v.Storage || onlyVersion,
		"schema": map[string]any{"openAPIV3Schema": schemaMap},
	}
	if v.Deprecated {
		out["deprecated"] = true
		if v.DeprecationWarning != "" {
			out["deprecationWarning"] = v.DeprecationWarning
		}
	} else if v.DeprecationWarning != "" {
		return nil, errors.New("a DeprecationWarning needs Deprecated")
	}
	sub := map[string]any{}
	if v.Status {
		if sch.Properties["status"] == nil {
			return nil, errors.New("the status subresource needs a status field")
		}
		sub["status"] = map[string]any{}
	}
	if v.Scale != nil {
		if !hasPath(sch, v.Scale.SpecReplicasPath, "integer") || !strings.HasPrefix(v.Scale.SpecReplicasPath, ".spec.") {
			return nil, fmt.Errorf("scale: SpecReplicasPath %q is no integer field under .spec", v.Scale.SpecReplicasPath)
		}
		if !hasPath(sch, v.Scale.StatusReplicasPath, "integer") || !strings.HasPrefix(v.Scale.StatusReplicasPath, ".status.") {
			return nil, fmt.Errorf("scale: StatusReplicasPath %q is no integer field under .status", v.Scale.StatusReplicasPath)
		}
		scale := map[string]any{"specReplicasPath": v.Scale.SpecReplicasPath, "statusReplicasPath": v.Scale.StatusReplicasPath}
		if p := v.Scale.LabelSelectorPath; p != "" {
			if !hasPath(sch, p, "string") || !strings.HasPrefix(p, ".status.") {
				return nil, fmt.Errorf("scale: LabelSelectorPath %q is no string field under .status", p)
			}
			scale["labelSelectorPath"] = p
		}
		sub["scale"] = scale
	}
	if len(sub) > 0 {
		out["subresources"] = sub
	}
	var cols []any
	for _, c := range v.PrinterColumns {
		if c.Name == "" || !slices.Contains([]string{"integer", "number", "string", "boolean", "date"}, c.Type) {
			return nil, fmt.Errorf("printer column %q: a name and a type (integer, number, string, boolean or date)", c.Name)
		}
		if !hasPath(sch, c.JSONPath, "") {
			return nil, fmt.Errorf("printer column %q: JSONPath %q names no field of the schema", c.Name, c.JSONPath)
		}
		col := map[string]any{"name": c.Name, "type": c.Type, "jsonPath": c.JSONPath}
		if c.Format != "" {
			col["format"] = c.Format
		}
		if c.Description != "" {
			col["description"] = c.Description
		}
		if c.Priority != 0 {
			col["priority"] = int64(c.Priority)
		}
		cols = append(cols, col)
	}
	if cols != nil {
		out["additionalPrinterColumns"] = cols
	}
	return out, nil
}

// hasPath reports whether the simple JSON path p (".spec.replicas") names a
// field of sch, of type typ when typ is set. A path through metadata or
// an object of unknown fields is taken as it is.
func hasPath(sch *apischema.Schema, p, typ string) bool {
	rest, ok := strings.CutPrefix(p, ".")
	if !ok || rest == "" {
		return false
	}
	s := sch
	for _, part := range strings.Split(rest, ".") {
		if s.PreserveUnknownFields || (s == sch && part == "metadata") {
			return true
		}
		if s.AdditionalProperties != nil {
			s = s.AdditionalProperties
			continue
		}
		next := s.Properties[part]
		if next == nil {
			return false
		}
		s = next
	}
	return typ == "" || s.Type == typ
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
