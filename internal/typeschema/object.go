package typeschema

// Object returns s as the JSON object a definition's openAPIV3Schema holds
// (map[string]any, []any, string, bool, int64, float64 values), equal to
// decoding its JSON form, without encoding it. The result shares nothing
// with s except Default and Enum values, which are JSON values already.
func (s *Schema) Object() map[string]any {
	if s == nil {
		return nil
	}
	m := map[string]any{}
	str := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	flag := func(k string, v bool) {
		if v {
			m[k] = true
		}
	}
	num := func(k string, v *float64) {
		if v != nil {
			m[k] = jsonNumber(*v)
		}
	}
	count := func(k string, v *int64) {
		if v != nil {
			m[k] = *v
		}
	}
	str("type", s.Type)
	str("format", s.Format)
	str("description", s.Description)
	flag("nullable", s.Nullable)
	if s.Default != nil {
		m["default"] = jsonValue(s.Default)
	}
	if len(s.Enum) > 0 {
		m["enum"] = jsonValue(s.Enum)
	}
	num("maximum", s.Maximum)
	flag("exclusiveMaximum", s.ExclusiveMaximum)
	num("minimum", s.Minimum)
	flag("exclusiveMinimum", s.ExclusiveMinimum)
	num("multipleOf", s.MultipleOf)
	count("maxLength", s.MaxLength)
	count("minLength", s.MinLength)
	str("pattern", s.Pattern)
	count("maxItems", s.MaxItems)
	count("minItems", s.MinItems)
	count("maxProperties", s.MaxProperties)
	count("minProperties", s.MinProperties)
	if len(s.Required) > 0 {
		m["required"] = anyStrings(s.Required)
	}
	if s.Items != nil {
		m["items"] = s.Items.Object()
	}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for k, p := range s.Properties {
			props[k] = p.Object()
		}
		m["properties"] = props
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = s.AdditionalProperties.Object()
	}
	if len(s.AnyOf) > 0 {
		var list []any
		for _, a := range s.AnyOf {
			list = append(list, a.Object())
		}
		m["anyOf"] = list
	}
	flag("x-kubernetes-preserve-unknown-fields", s.PreserveUnknownFields)
	flag("x-kubernetes-embedded-resource", s.EmbeddedResource)
	flag("x-kubernetes-int-or-string", s.IntOrString)
	str("x-kubernetes-list-type", s.ListType)
	if len(s.ListMapKeys) > 0 {
		m["x-kubernetes-list-map-keys"] = anyStrings(s.ListMapKeys)
	}
	str("x-kubernetes-map-type", s.MapType)
	if len(s.Validations) > 0 {
		var vs []any
		for _, v := range s.Validations {
			vm := map[string]any{"rule": v.Rule}
			for k, x := range map[string]string{"message": v.Message, "messageExpression": v.MessageExpression, "reason": v.Reason, "fieldPath": v.FieldPath} {
				if x != "" {
					vm[k] = x
				}
			}
			if v.OptionalOldSelf != nil {
				vm["optionalOldSelf"] = *v.OptionalOldSelf
			}
			vs = append(vs, vm)
		}
		m["x-kubernetes-validations"] = vs
	}
	return m
}

// jsonNumber is f as decoding JSON into an unstructured object gives it:
// an int64 when it is a whole number.
func jsonNumber(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}

// jsonValue copies a JSON value with its numbers as decoding JSON into an
// unstructured object gives them.
func jsonValue(v any) any {
	switch t := v.(type) {
	case float64:
		return jsonNumber(t)
	case float32:
		return jsonNumber(float64(t))
	case int:
		return int64(t)
	case int32:
		return int64(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = jsonValue(e)
		}
		return out
	}
	return v
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
