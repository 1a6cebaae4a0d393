package typeschema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Options tune a build (apischema.Options documents them for users). The
// zero value keeps every description.
type Options struct {
	// Descriptions, when set, is called with the path of each schema
	// ("spec.jobTemplate.spec.template.spec.containers[*].image"; "" for
	// the root) and its description, and returns the description to keep
	// ("" drops it). NoDescriptions is one.
	Descriptions func(path, text string) string
	// Declarations adds declarations by path, in the syntax of the kube
	// struct tag, for fields of types the author cannot tag (a field of a
	// k8s.io/api type):
	//
	//	"jobTemplate.spec.template.spec.containers[*].image": "minLength=1"
	//
	// Paths are those Schema.Walk gives, from the schema being built (for
	// Resource, "spec.…"). A path that names no schema, or a declaration
	// that cannot be honoured, is a *DeclarationError naming the path.
	Declarations map[string]string
	// DocComments, when set, describes the schemas of the types of its
	// package, and of their fields, with their Go doc comments (see
	// ReadDocComments), where no declaration gives a description.
	DocComments *DocComments
}

// NoDescriptions drops every description: the smallest schema, for a
// definition applied client-side (whose last-applied annotation is
// limited to 262,144 bytes) or any size-bound path.
func NoDescriptions(path, text string) string { return "" }

// Type returns the structural schema of values of Go type t, derived as
// apischema.Type documents (JSON names and omission from json tags, the
// published schemas of k8s.io types, the kube tag, Declarer methods and
// Options.Declarations), with the CEL of declared rules checked by rules
// (see Rules; nil checks only their form). A type with no schema is a
// *TypeError; a declaration that cannot be honoured is a
// *DeclarationError. It is safe for concurrent use.
func Type(t reflect.Type, opts Options, rules Rules) (*Schema, error) {
	b := &builder{visiting: map[reflect.Type]bool{}, published: map[string]bool{}, docs: opts.DocComments, owners: map[string]owner{}, rules: rules}
	s, err := b.schema(t, "")
	if err != nil {
		return nil, err
	}
	if err := declareByPath(s, t, opts.Declarations); err != nil {
		return nil, err
	}
	if err := b.checkCosts(s, t); err != nil {
		return nil, err
	}
	describe(s, opts)
	return s, nil
}

// Resource returns the openAPIV3Schema of a custom resource of Go type t,
// as apischema.Resource documents: as Type, for a struct with
// metav1.TypeMeta inline and a metav1.ObjectMeta field "metadata" (which
// is only an object); apiVersion, kind, metadata and status are never
// required. t not of that shape is a *TypeError.
func Resource(t reflect.Type, opts Options, rules Rules) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || !hasResourceShape(t) {
		return nil, &TypeError{Type: t, Reason: "a custom resource is a struct with metav1.TypeMeta inline and a metav1.ObjectMeta field \"metadata\""}
	}
	return Type(t, opts, rules)
}

func hasResourceShape(t reflect.Type) bool {
	var typeMeta, objectMeta bool
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Type == typeMetaType && f.Anonymous:
			typeMeta = true
		case f.Type == objectMetaType && jsonName(f) == "metadata":
			objectMeta = true
		}
	}
	return typeMeta && objectMeta
}

var (
	typeMetaType     = reflect.TypeFor[metav1.TypeMeta]()
	objectMetaType   = reflect.TypeFor[metav1.ObjectMeta]()
	durationType     = reflect.TypeFor[metav1.Duration]()
	timeType         = reflect.TypeFor[time.Time]()
	rawMessageType   = reflect.TypeFor[json.RawMessage]()
	declarerType     = reflect.TypeFor[Declarer]()
	jsonMarshaler    = reflect.TypeFor[json.Marshaler]()
	textMarshaler    = reflect.TypeFor[encoding.TextMarshaler]()
	validationReason = []string{"", "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"}
)

type builder struct {
	visiting  map[reflect.Type]bool
	published map[string]bool
	docs      *DocComments
	// owners are the Go type (and field) each schema path was built from,
	// for the errors found on the whole schema.
	owners map[string]owner
	// rules checks the CEL of declared rules; nil checks none.
	rules Rules
}

// schema builds the schema of t at path ("" for the root, whose metadata,
// if t is a resource, is only an object).
func (b *builder) schema(t reflect.Type, path string) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	decl, hasDecl := declarationOf(t)
	if _, ok := b.owners[path]; !ok && hasDecl {
		b.owners[path] = owner{t: t}
	}
	if hasDecl && decl.Schema != nil {
		if decl.Description != "" || decl.Tag != "" || len(decl.Validations) > 0 || len(decl.Fields) > 0 {
			return nil, &DeclarationError{Type: t, Declaration: "Schema", Reason: "a Declaration with a Schema declares nothing else"}
		}
		c := clone(decl.Schema)
		if c != nil && b.rules != nil {
			if r := b.rules.CompileSchema(c); r != "" {
				return nil, &DeclarationError{Type: t, Declaration: "Schema", Reason: r}
			}
		}
		return c, nil
	}
	switch t {
	case durationType:
		return &Schema{Type: "string"}, nil
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	case rawMessageType:
		return &Schema{PreserveUnknownFields: true}, nil
	case typeMetaType:
		// walked below, as any struct
	default:
		if name := modelName(t); name != "" {
			if hasDecl {
				return nil, &DeclarationError{Type: t, Declaration: "KubeSchema", Reason: "a type of k8s.io has the schema kube-apiserver publishes"}
			}
			s, err := publishedSchema(name, b.published)
			if err != nil {
				return nil, &TypeError{Type: t, Path: path, Reason: err.Error()}
			}
			return s, nil
		}
	}
	var s *Schema
	switch {
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return nil, &TypeError{Type: t, Path: path, Reason: "has a JSON form of its own (json.Marshaler): declare its schema (Declarer, Declaration.Schema)"}
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		s = &Schema{Type: "string"}
	default:
		var err error
		if s, err = b.kindSchema(t, path); err != nil {
			return nil, err
		}
	}
	if text := b.docs.of(t, ""); text != "" {
		s.Description = text
	}
	if hasDecl {
		if err := b.applyDeclaration(s, t, decl, path == ""); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (b *builder) kindSchema(t reflect.Type, path string) (*Schema, error) {
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return &Schema{Type: "integer", Format: "int32"}, nil
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Format: "int64"}, nil
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}, nil
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Interface:
		return &Schema{PreserveUnknownFields: true}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(jsonMarshaler) && !t.Elem().Implements(textMarshaler) {
			return &Schema{Type: "string", Format: "byte"}, nil
		}
		items, err := b.schema(t.Elem(), path+"[*]")
		if err != nil {
			return nil, err
		}
		items.Nullable = items.Nullable || canBeNull(t.Elem())
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Array:
		items, err := b.schema(t.Elem(), path+"[*]")
		if err != nil {
			return nil, err
		}
		n := int64(t.Len())
		return &Schema{Type: "array", Items: items, MinItems: &n, MaxItems: &n}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, &TypeError{Type: t, Path: path, Reason: "a map's keys must be strings"}
		}
		if t.Elem().Kind() == reflect.Interface {
			return &Schema{Type: "object", PreserveUnknownFields: true}, nil
		}
		values, err := b.schema(t.Elem(), path+"[*]")
		if err != nil {
			return nil, err
		}
		values.Nullable = values.Nullable || canBeNull(t.Elem())
		return &Schema{Type: "object", AdditionalProperties: values}, nil
	case reflect.Struct:
		if b.visiting[t] {
			return nil, &TypeError{Type: t, Path: path, Reason: "recursive type: a structural schema cannot refer to itself"}
		}
		b.visiting[t] = true
		defer delete(b.visiting, t)
		s := &Schema{Type: "object", Properties: map[string]*Schema{}}
		if err := b.fields(s, t, path, path == "" && hasResourceShape(t)); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, &TypeError{Type: t, Path: path, Reason: "no JSON form (" + t.Kind().String() + ")"}
}

// fields adds the fields of struct t to s.
func (b *builder) fields(s *Schema, t reflect.Type, path string, resource bool) error {
	decl, _ := declarationOf(t)
	for name := range decl.Fields {
		if f, ok := t.FieldByName(name); !ok || !f.IsExported() {
			return &DeclarationError{Type: t, Declaration: "Fields[" + name + "]", Reason: "no exported field of that name"}
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			if kt := f.Tag.Get(TagKey); kt != "" {
				return &DeclarationError{Type: t, Field: f.Name, Declaration: kt, Reason: "an inlined struct has no schema of its own to declare on"}
			}
			if b.visiting[ft] {
				return &TypeError{Type: ft, Path: path, Reason: "recursive type"}
			}
			b.visiting[ft] = true
			err := b.fields(s, ft, path, resource)
			delete(b.visiting, ft)
			if err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		b.owners[p] = owner{t: t, field: f.Name}
		var fs *Schema
		if resource && name == "metadata" && ft == objectMetaType {
			fs = &Schema{Type: "object"}
		} else {
			var err error
			if fs, err = b.schema(f.Type, p); err != nil {
				return err
			}
		}
		kubeTag, ok := f.Tag.Lookup(TagKey)
		if !ok && strings.Contains(string(f.Tag), TagKey+":") {
			return &DeclarationError{Type: t, Field: f.Name, Declaration: string(f.Tag), Reason: "not a well-formed struct tag (a backslash in a value is written \\\\)"}
		}
		flags, terr := applyTag(fs, kubeTag)
		if terr != nil {
			return &DeclarationError{Type: t, Field: f.Name, Declaration: terr.entry, Reason: terr.reason}
		}
		if fs.EmbeddedResource {
			if err := b.embed(fs, f, t, p); err != nil {
				return err
			}
		}
		if text := b.docs.of(t, f.Name); text != "" {
			fs.Description = text
		}
		if fd, ok := decl.Fields[f.Name]; ok {
			if fd.Description != "" {
				fs.Description = fd.Description
			}
			if err := checkValidations(fd.Validations); err != "" {
				return &DeclarationError{Type: t, Field: f.Name, Declaration: "Fields[" + f.Name + "].Validations", Reason: err}
			}
			if err := b.compile(fs, fd.Validations, false); err != "" {
				return &DeclarationError{Type: t, Field: f.Name, Declaration: "Fields[" + f.Name + "].Validations", Reason: err}
			}
			fs.Validations = append(fs.Validations, fd.Validations...)
		}
		omitted := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !omitted && canBeNull(f.Type) {
			// encoding/json writes null for a nil value: keep it, as the
			// server would otherwise drop the field.
			fs.Nullable = true
		}
		if _, dup := s.Properties[name]; dup {
			return &TypeError{Type: t, Path: p, Reason: "two fields have the JSON name " + name}
		}
		s.Properties[name] = fs
		required := flags.required || (!flags.optional && !omitted && f.Type.Kind() != reflect.Pointer)
		if required && !(resource && (name == "metadata" || name == "apiVersion" || name == "kind" || name == "status")) {
			s.Required = append(s.Required, name)
		}
	}
	slices.Sort(s.Required)
	return nil
}

// embed rebuilds the schema of field f, declared an embedded resource, as
// a resource: its metadata only an object, as kube-apiserver validates an
// embedded resource's metadata itself.
func (b *builder) embed(fs *Schema, f reflect.StructField, t reflect.Type, path string) error {
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if ft.Kind() != reflect.Struct {
		return nil // a map or interface: any object
	}
	if !hasResourceShape(ft) {
		return &DeclarationError{Type: t, Field: f.Name, Declaration: "embeddedResource", Reason: "the field's type has no metav1.TypeMeta inline and metav1.ObjectMeta \"metadata\""}
	}
	if m := fs.Properties["metadata"]; m != nil {
		fs.Properties["metadata"] = &Schema{Type: "object", Description: m.Description}
	}
	return nil
}

// jsonName is the name a struct field has in JSON ("" when left out or
// inlined).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" && !f.Anonymous {
		name = f.Name
	}
	return name
}

// declarationOf calls t's Declarer method, if it has one.
func declarationOf(t reflect.Type) (Declaration, bool) {
	switch {
	case t.Implements(declarerType):
		return reflect.Zero(t).Interface().(Declarer).KubeSchema(), true
	case reflect.PointerTo(t).Implements(declarerType):
		return reflect.New(t).Interface().(Declarer).KubeSchema(), true
	}
	return Declaration{}, false
}

// applyDeclaration applies a type's own declarations to its schema s
// (root: the schema being built, where a resource's self has apiVersion,
// kind and metadata).
func (b *builder) applyDeclaration(s *Schema, t reflect.Type, d Declaration, root bool) error {
	flags, terr := applyTag(s, d.Tag)
	if terr != nil {
		return &DeclarationError{Type: t, Declaration: terr.entry, Reason: terr.reason}
	}
	if flags.optional || flags.required {
		return &DeclarationError{Type: t, Declaration: "optional/required", Reason: "a field is optional or required, not a type"}
	}
	if len(d.Fields) > 0 && t.Kind() != reflect.Struct {
		return &DeclarationError{Type: t, Declaration: "Fields", Reason: "only a struct has fields"}
	}
	if r := checkValidations(d.Validations); r != "" {
		return &DeclarationError{Type: t, Declaration: "Validations", Reason: r}
	}
	if r := b.compile(s, d.Validations, root); r != "" {
		return &DeclarationError{Type: t, Declaration: "Validations", Reason: r}
	}
	s.Validations = append(s.Validations, d.Validations...)
	if d.Description != "" {
		s.Description = d.Description
	}
	return nil
}

func checkValidations(vs []Validation) string {
	for i, v := range vs {
		switch {
		case strings.TrimSpace(v.Rule) == "":
			return "rule " + itoa(i) + " is empty"
		case !slices.Contains(validationReason, v.Reason):
			return "rule " + itoa(i) + ": reason " + v.Reason + " is not one of " + strings.Join(validationReason[1:], ", ")
		case v.FieldPath != "" && !strings.HasPrefix(v.FieldPath, "."):
			return "rule " + itoa(i) + ": fieldPath " + v.FieldPath + " must start with \".\""
		case strings.ContainsAny(v.Message, "\n"):
			return "rule " + itoa(i) + ": a message is one line"
		}
	}
	return ""
}

// compile returns why the first of the rules vs declared on s does not
// compile ("" if all do, or when the build checks no CEL).
func (b *builder) compile(s *Schema, vs []Validation, root bool) string {
	if len(vs) == 0 || b.rules == nil {
		return ""
	}
	return b.rules.Compile(s, vs, root)
}

// describe passes every description of s through opts.Descriptions.
func describe(s *Schema, opts Options) {
	if opts.Descriptions == nil {
		return
	}
	s.Walk(func(path string, s *Schema) {
		if s.Description != "" {
			s.Description = opts.Descriptions(path, s.Description)
		}
	})
}

func clone(s *Schema) *Schema {
	data, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var out Schema
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return &out
}

func itoa(i int) string { return strconv.Itoa(i) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// canBeNull reports whether encoding/json writes null for some value of t
// (a nil pointer, slice, map or interface).
func canBeNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		return true
	case reflect.Slice, reflect.Map:
		return !t.Implements(jsonMarshaler) || t == rawMessageType
	}
	return false
}

// declareByPath applies Options.Declarations to the schema s of type t.
func declareByPath(s *Schema, t reflect.Type, decls map[string]string) error {
	if len(decls) == 0 {
		return nil
	}
	found := map[string]*Schema{}
	parents := map[string]*Schema{}
	s.Walk(func(path string, sub *Schema) {
		if _, ok := decls[path]; ok && found[path] == nil {
			found[path] = sub // the schema itself, not an anyOf member of the same path
		}
		for name := range sub.Properties {
			child := name
			if path != "" {
				child = path + "." + name
			}
			if _, ok := decls[child]; ok {
				parents[child] = sub
			}
		}
	})
	for _, path := range sortedKeys(decls) {
		target := found[path]
		if target == nil {
			return &DeclarationError{Type: t, Field: path, Declaration: decls[path], Reason: "no schema at this path"}
		}
		flags, terr := applyTag(target, decls[path])
		if terr != nil {
			return &DeclarationError{Type: t, Field: path, Declaration: terr.entry, Reason: terr.reason}
		}
		if flags.optional || flags.required {
			parent := parents[path]
			if parent == nil {
				return &DeclarationError{Type: t, Field: path, Declaration: decls[path], Reason: "only a property is optional or required"}
			}
			name := path[strings.LastIndex(path, ".")+1:]
			parent.Required = slices.DeleteFunc(parent.Required, func(r string) bool { return r == name })
			if flags.required {
				parent.Required = append(parent.Required, name)
				slices.Sort(parent.Required)
			}
		}
	}
	return nil
}
