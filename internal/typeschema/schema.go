package typeschema

// Schema is a structural OpenAPI v3 schema as an
// apiextensions.k8s.io/v1 CustomResourceDefinition holds it (the subset of
// JSONSchemaProps a structural schema may use); its JSON form is a
// definition's openAPIV3Schema.
type Schema struct {
	Type        string `json:"type,omitempty"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Nullable    bool   `json:"nullable,omitempty"`
	// Default is a JSON value: string, bool, int64, float64, []any or
	// map[string]any.
	Default any `json:"default,omitempty"`
	// Enum holds JSON values as Default does.
	Enum []any `json:"enum,omitempty"`

	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMaximum bool     `json:"exclusiveMaximum,omitempty"`
	Minimum          *float64 `json:"minimum,omitempty"`
	ExclusiveMinimum bool     `json:"exclusiveMinimum,omitempty"`
	MultipleOf       *float64 `json:"multipleOf,omitempty"`

	MaxLength *int64 `json:"maxLength,omitempty"`
	MinLength *int64 `json:"minLength,omitempty"`
	Pattern   string `json:"pattern,omitempty"`

	MaxItems *int64 `json:"maxItems,omitempty"`
	MinItems *int64 `json:"minItems,omitempty"`

	MaxProperties *int64 `json:"maxProperties,omitempty"`
	MinProperties *int64 `json:"minProperties,omitempty"`

	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`

	// AnyOf only restates the types an x-kubernetes-int-or-string value
	// may take, as a structural schema allows.
	AnyOf []*Schema `json:"anyOf,omitempty"`

	PreserveUnknownFields bool         `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	EmbeddedResource      bool         `json:"x-kubernetes-embedded-resource,omitempty"`
	IntOrString           bool         `json:"x-kubernetes-int-or-string,omitempty"`
	ListType              string       `json:"x-kubernetes-list-type,omitempty"`
	ListMapKeys           []string     `json:"x-kubernetes-list-map-keys,omitempty"`
	MapType               string       `json:"x-kubernetes-map-type,omitempty"`
	Validations           []Validation `json:"x-kubernetes-validations,omitempty"`
}

// Validation is one CEL rule of x-kubernetes-validations (see
// apischema.Validation).
type Validation struct {
	Rule              string `json:"rule"`
	Message           string `json:"message,omitempty"`
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is FieldValueInvalid (the server's default),
	// FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.
	Reason    string `json:"reason,omitempty"`
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf makes a transition rule (one using oldSelf) run on
	// create too, with oldSelf an absent optional.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// Walk calls fn for s and every schema under it (items, properties in
// name order, additionalProperties, anyOf), depth first, with the path of
// each from s ("" for s itself, "spec.replicas", "items[*]" for list
// items and map values).
func (s *Schema) Walk(fn func(path string, s *Schema)) {
	s.walk("", fn)
}

func (s *Schema) walk(path string, fn func(string, *Schema)) {
	if s == nil {
		return
	}
	fn(path, s)
	s.Items.walk(path+"[*]", fn)
	for _, name := range sortedKeys(s.Properties) {
		p := name
		if path != "" {
			p = path + "." + name
		}
		s.Properties[name].walk(p, fn)
	}
	s.AdditionalProperties.walk(path+"[*]", fn)
	for _, a := range s.AnyOf {
		a.walk(path, fn)
	}
}
