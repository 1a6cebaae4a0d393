package apischema

import (
	"io/fs"
	"reflect"
	"strings"

	"github.com/kubego/kubego/internal/typeschema"
)

// Schema is a structural OpenAPI v3 schema as an
// apiextensions.k8s.io/v1 CustomResourceDefinition holds it: the subset of
// JSONSchemaProps a structural schema may use, each field named as its
// JSON key is (Type, Format, Description, Nullable, Default, Enum, the
// bounds, Pattern, Required, Items, Properties, AdditionalProperties,
// AnyOf, and the x-kubernetes- extensions PreserveUnknownFields,
// EmbeddedResource, IntOrString, ListType, ListMapKeys, MapType and
// Validations). Its JSON form is what a definition's openAPIV3Schema
// takes; Object returns that form without encoding it, and Walk visits
// every schema under it by path. A Schema built by this package is the
// caller's: nothing else refers to it.
type Schema = typeschema.Schema

// Validation is one CEL rule of x-kubernetes-validations: the API server
// evaluates Rule against the value of the schema it is declared on (self)
// and refuses a write where it is false, with Message (or the string
// MessageExpression evaluates to) at the field path of that schema, or
// below it at FieldPath (which starts with "."). Reason is
// FieldValueInvalid (the server's default), FieldValueForbidden,
// FieldValueRequired or FieldValueDuplicate; OptionalOldSelf makes a
// transition rule (one using oldSelf) run on create too, with oldSelf an
// absent optional.
type Validation = typeschema.Validation

// Options tune a build. The zero value keeps every description.
//
// Descriptions, when set, is called with the path of each schema
// ("spec.jobTemplate.spec.template.spec.containers[*].image"; "" for the
// root) and its description, and returns the description to keep ("" drops
// it): NoDescriptions and TrimDescriptions are two.
//
// Declarations adds declarations by path, in the syntax of the kube
// struct tag, for fields of types the author cannot tag (a field of a
// k8s.io/api type):
//
//	"jobTemplate.spec.template.spec.containers[*].image": "minLength=1"
//
// Paths are those Schema.Walk gives, from the schema being built (for
// Resource, "spec.…"). A path that names no schema, or a declaration that
// cannot be honoured, is a *DeclarationError naming the path.
//
// DocComments, when set, describes the schemas of the types of its
// package, and of their fields, with their Go doc comments (see
// ReadDocComments), where no declaration gives a description.
type Options = typeschema.Options

// Declarer is implemented by a Go type that declares more of its own
// schema than its Go shape says: its description, CEL rules, the
// descriptions and rules of its fields, and rules in the syntax of the
// kube struct tag that hold wherever the type is used (an enum of a named
// string type, a pattern). The method KubeSchema is called on the zero
// value of the type (value or pointer receiver), so it must not depend on
// the value.
type Declarer = typeschema.Declarer

// Declaration is what a type declares of its schema (see Declarer):
// Description, describing the type wherever it is used (a field's own
// description takes precedence); Tag, declarations in the syntax of the
// kube struct tag for every use of the type ("enum=Allow|Forbid|Replace",
// "mapType=atomic"); Validations, CEL rules on the type's schema; Fields,
// by Go field name, a field's description and CEL rules; or Schema, the
// type's whole schema used as given (a copy), for a type with a JSON form
// of its own (a json.Marshaler), with every other part empty.
//
// Every part is checked when a schema is built: a key of Fields that is
// not a field of the type, a malformed Tag, an empty rule or one that does
// not compile is a *DeclarationError.
type Declaration = typeschema.Declaration

// Field is what a Declaration declares of one field: its Description and
// its Validations (CEL rules with self the field's value).
type Field = typeschema.Field

// DocComments are the doc comments of a package's Go types and of their
// fields, read from its source (ReadDocComments), so that a schema is
// described by what the Go code already says, with no generator. A
// type's comment describes its schema and a field's comment (or, if it
// has none, its line comment) describes the field's, where no declaration
// (KubeSchema, a Field's Description) says otherwise. Lines that are
// markers of other tools ("+kubebuilder:…", "+optional") are left out. A
// DocComments is read-only once made and safe for concurrent use; the
// zero value describes nothing.
type DocComments = typeschema.DocComments

// DeclarationError is a declaration that cannot be honoured: unknown,
// malformed, not fitting its field's type, a CEL rule that does not
// compile or whose estimated cost is over kube-apiserver's limits. Type
// is the struct type holding the field, or the type whose Declarer method
// made the declaration; Field is the Go field name ("" for a declaration
// on the type), or the path of a declaration of Options.Declarations (Type
// is then the type built); Declaration is the offending entry
// ("patern=x", "Fields[Nmae]", a rule); Reason says what is wrong with
// it. It wraps ErrDeclaration.
type DeclarationError = typeschema.DeclarationError

// TypeError is a Go type that has no schema (Type), reached at Path from
// the root type, and why (Reason). It wraps ErrUnsupported.
type TypeError = typeschema.TypeError

var (
	// ErrDeclaration is wrapped by a *DeclarationError: a declaration
	// (struct tag, Declarer method or option) that is unknown, malformed
	// or does not fit the field's type.
	ErrDeclaration = typeschema.ErrDeclaration
	// ErrUnsupported is wrapped by a *TypeError: a Go type that has no
	// schema (a channel, a function, a complex number, a recursive type, a
	// json.Marshaler of unknown form, a map with keys that are not
	// strings, a type of k8s.io/api with no published schema).
	ErrUnsupported = typeschema.ErrUnsupported
)

// TagKey is the struct tag this package reads declarations from:
//
//	Schedule string `json:"schedule" kube:"minLength=1;pattern=^\\S+( \\S+){4}$"`
//
// A struct tag's value is a Go string literal, so a backslash in it is
// written twice (as above); a tag that is not well formed is an error, not
// an empty declaration. A tag is a list of entries separated by ";" (a ";"
// inside a value is written "\\;" in the struct tag), each a flag
// ("nullable") or key=value. Lists inside a value are separated by "|"
// ("enum=A|B", "listMapKeys=name|port"); a "|" inside one of them is
// written "\\|" in the struct tag ("enum=a\\|b|c" is the two values "a|b"
// and "c"). Values are read as the field's JSON type: "default=5" is the
// number 5 on an integer field and the string "5" on a string field;
// objects and arrays are JSON. An entry prefixed "items." applies to the
// items of a list ("items.pattern=^[a-z]+$"). Every entry is checked: an
// unknown key, a malformed value or one that does not fit the field's
// type is a *DeclarationError.
const TagKey = typeschema.TagKey

// NoDescriptions drops every description: the smallest schema, for a
// definition applied client-side (whose last-applied annotation is
// limited to 262,144 bytes) or any size-bound path.
func NoDescriptions(path, text string) string { return typeschema.NoDescriptions(path, text) }

// TrimDescriptions returns a Descriptions function keeping of each
// description the sentences that fit in n bytes (the first sentence cut to
// n bytes if even it does not fit).
func TrimDescriptions(n int) func(path, text string) string {
	return func(_, text string) string {
		if len(text) <= n {
			return text
		}
		cut := text[:n]
		if i := strings.LastIndex(cut, ". "); i > 0 {
			return cut[:i+1]
		}
		for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 {
			cut = cut[:len(cut)-1]
		}
		if len(cut) > 0 && cut[len(cut)-1] >= 0xC0 {
			cut = cut[:len(cut)-1]
		}
		return cut
	}
}

// For returns the schema a field of Go type T has (see Type).
func For[T any](opts Options) (*Schema, error) {
	return Type(reflect.TypeFor[T](), opts)
}

// ResourceFor returns the schema of a custom resource of Go type T (see
// Resource).
func ResourceFor[T any](opts Options) (*Schema, error) {
	return Resource(reflect.TypeFor[T](), opts)
}

// Type returns the structural schema of values of Go type t, as their JSON
// form (encoding/json) has it:
//
//   - a struct is an object of its fields by their json names; a field
//     tagged "-" or unexported is left out, an embedded struct without a
//     json name (or tagged ",inline") is flattened; a field is required
//     unless it is omitted when empty (omitempty, omitzero) or a pointer,
//     or its kube tag says "optional" ("required" makes any field
//     required);
//   - bool is boolean; int8 to int32, uint8 and uint16 are integers of
//     format int32; other integers are format int64; float32 and float64
//     are numbers of format float and double; string and
//     encoding.TextMarshaler are strings; []byte is a string of format
//     byte; slices and arrays are lists; maps with string keys are objects
//     of additionalProperties; interfaces and json.RawMessage are any
//     value (x-kubernetes-preserve-unknown-fields); time.Time is a
//     date-time string;
//   - a type of k8s.io/api or k8s.io/apimachinery (PodSpec, Condition,
//     ObjectMeta, Time, Quantity, IntOrString, …) has the schema
//     kube-apiserver publishes for it, with its list types and map keys,
//     in structural form; metav1.Duration is a string;
//   - the kube struct tag (TagKey) and the Declarer method add
//     declarations; their CEL rules are compiled, and their estimated
//     costs checked on the whole schema, as kube-apiserver does.
//
// A type with no schema is a *TypeError; a declaration that cannot be
// honoured is a *DeclarationError. It is safe for concurrent use.
func Type(t reflect.Type, opts Options) (*Schema, error) {
	return typeschema.Type(t, opts, celRules{})
}

// Resource returns the openAPIV3Schema of a custom resource of Go type t:
// as Type, with what kube-apiserver expects at the root of a custom
// resource: t is a struct with metav1.TypeMeta inline and a metav1.ObjectMeta
// field "metadata", which is only "type: object" (the server validates
// metadata itself); apiVersion, kind, metadata and status are never
// required (a create through a status subresource drops status). t not of
// that shape is a *TypeError.
func Resource(t reflect.Type, opts Options) (*Schema, error) {
	return typeschema.Resource(t, opts, celRules{})
}

// ReadDocComments reads the doc comments of the Go files (not _test.go)
// at the root of fsys, which hold one package. A file that does not parse
// is an error naming it. The API package embeds its own source and hands
// it over:
//
//	//go:embed types.go
//	var source embed.FS
//
//	docs, err := apischema.ReadDocComments(source)
//	s, err := apischema.ResourceFor[CronJob](apischema.Options{DocComments: docs})
func ReadDocComments(fsys fs.FS) (*DocComments, error) {
	return typeschema.ReadDocComments(fsys)
}
