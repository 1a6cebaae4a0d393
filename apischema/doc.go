// Package apischema derives the structural OpenAPI v3 schema of a custom
// resource from its Go type, by reflection when the program runs: no
// generated file, no comment markers. crd.Build assembles the
// CustomResourceDefinition around it.
//
//	sch, err := apischema.ResourceFor[v1.CronJob](apischema.Options{})
//
// The JSON shape comes from the json tags (names, omitempty, omitzero,
// inline, "-"): a field is required unless it may be omitted or is a
// pointer. Types of k8s.io/api and k8s.io/apimachinery embedded in a
// custom resource (a PodSpec, a JobTemplateSpec, a Condition, a
// Quantity) get the schema kube-apiserver publishes for them, read from an
// embedded capture of its OpenAPI documents and turned into structural
// form, with their list types, map keys and enums: a Job template in a
// custom resource is checked as a Job's is.
//
// More is declared in Go, each declaration checked when the schema is
// built so that a typo fails instead of being ignored:
//
//   - the kube struct tag on a field (TagKey): enum, default, minimum,
//     maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength,
//     maxLength, pattern, format, minItems, maxItems, listType,
//     listMapKeys, minProperties, maxProperties, mapType, nullable,
//     preserveUnknownFields, embeddedResource, optional, required, and the
//     same prefixed "items." for a list's items;
//   - a KubeSchema method on a type (Declarer): its description, a tag
//     for every use of the type (an enum of a named string type), CEL
//     rules (x-kubernetes-validations) on the type or on its fields, the
//     descriptions of its fields, or its whole schema for a type with a
//     JSON form of its own. Each CEL rule (and messageExpression and
//     fieldPath) is compiled as kube-apiserver compiles it, self typed by
//     the schema it is declared on, when the schema is built: a syntax
//     error, an unknown field, a type error or an unknown function is a
//     *DeclarationError naming the type, the field and the CEL error. The
//     rules' estimated costs are checked on the whole schema as
//     kube-apiserver checks them when the CustomResourceDefinition is
//     written (a rule's cost times the values it may run on, at most
//     10,000,000; all of them together at most 100,000,000): a rule over
//     them is a *DeclarationError naming the type and field it was
//     declared on, its estimate, the limit and the lists, maps and strings
//     whose missing maxItems, maxProperties or maxLength made the estimate
//     take their size from the largest request;
//
// and, for fields of types the author cannot tag, by path in
// Options.Declarations.
//
// Descriptions come from Declarer methods and from the published schemas;
// Options.Descriptions keeps, trims (TrimDescriptions) or drops
// (NoDescriptions) each one by its path, to keep a definition with an
// embedded PodSpec under any size limit.
//
// The reflection is done by an internal package that package apply
// shares, to learn how a custom resource merges without linking the CEL
// compiler; this package's types are aliases of that package's (shown as
// typeschema.…), so an error or Schema is the same value from either, and
// its functions add the checks of the CEL rules.
//
// The package holds no mutable state: the captured documents are decoded
// once, on first use, and only read after. Every function is safe for
// concurrent use, and every Schema returned is the caller's.
package apischema
