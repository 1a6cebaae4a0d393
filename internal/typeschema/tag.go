package typeschema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// TagKey is the struct tag declarations are read from; apischema.TagKey
// documents its syntax.
const TagKey = "kube"

// knownFormats are the string formats kube-apiserver validates in custom
// resources.
var knownFormats = []string{
	"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4", "uuid5",
	"isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date",
	"duration", "datetime", "date-time", "k8s-short-name", "k8s-long-name",
}

var tagKeys = []string{
	"optional", "required", "nullable", "preserveUnknownFields", "embeddedResource",
	"enum", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "listType", "listMapKeys",
	"minProperties", "maxProperties", "mapType",
}

// tagFlags are the entries of a tag that speak of the field rather than
// its schema.
type tagFlags struct {
	optional, required bool
}

// tagError is an entry that cannot be honoured; the caller names the type
// and field.
type tagError struct {
	entry, reason string
}

// splitTag cuts a tag into entries at each ";" not escaped as "\;".
func splitTag(tag string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		switch {
		case tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ';':
			cur.WriteByte(';')
			i++
		case tag[i] == ';':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(tag[i])
		}
	}
	return append(out, cur.String())
}

// splitList cuts a list value into its items at each "|" not escaped as
// "\|".
func splitList(value string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(value); i++ {
		switch {
		case value[i] == '\\' && i+1 < len(value) && value[i+1] == '|':
			cur.WriteByte('|')
			i++
		case value[i] == '|':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(value[i])
		}
	}
	return append(out, cur.String())
}

// applyTag applies the entries of tag to s.
func applyTag(s *Schema, tag string) (tagFlags, *tagError) {
	var flags tagFlags
	seen := map[string]bool{}
	var listMapKeys []string
	for _, entry := range splitTag(tag) {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		key, value, hasValue := strings.Cut(entry, "=")
		key = strings.TrimSpace(key)
		if seen[key] {
			return flags, &tagError{entry, "declared twice"}
		}
		seen[key] = true
		target := s
		if k, ok := strings.CutPrefix(key, "items."); ok {
			if s.Type != "array" || s.Items == nil {
				return flags, &tagError{entry, "items. applies to a list only"}
			}
			target, key = s.Items, k
			if key == "optional" || key == "required" {
				return flags, &tagError{entry, "items of a list cannot be optional or required"}
			}
		}
		if !slices.Contains(tagKeys, key) {
			return flags, &tagError{entry, "unknown declaration (known: " + strings.Join(tagKeys, ", ") + ")"}
		}
		isFlag := slices.Contains([]string{"optional", "required", "nullable", "preserveUnknownFields", "embeddedResource", "exclusiveMinimum", "exclusiveMaximum"}, key)
		if isFlag && hasValue {
			return flags, &tagError{entry, "takes no value"}
		}
		if !isFlag && (!hasValue || value == "") {
			return flags, &tagError{entry, "needs a value (" + key + "=…)"}
		}
		if r := applyEntry(target, key, value, &flags); r != "" {
			return flags, &tagError{entry, r}
		}
		if key == "listMapKeys" {
			listMapKeys = target.ListMapKeys
		}
	}
	if flags.optional && flags.required {
		return flags, &tagError{"optional;required", "a field is optional or required, not both"}
	}
	if listMapKeys != nil && s.ListType != "map" && (s.Items == nil || s.Items.ListType != "map") {
		return flags, &tagError{"listMapKeys", "needs listType=map"}
	}
	if s.ListType == "map" && len(s.ListMapKeys) == 0 {
		return flags, &tagError{"listType=map", "needs listMapKeys"}
	}
	if (s.ExclusiveMinimum && s.Minimum == nil) || (s.ExclusiveMaximum && s.Maximum == nil) {
		return flags, &tagError{"exclusiveMinimum/exclusiveMaximum", "needs the bound (minimum=…/maximum=…)"}
	}
	return flags, nil
}

// applyEntry applies one checked entry; it returns why it cannot, or "".
func applyEntry(s *Schema, key, value string, flags *tagFlags) string {
	isString := s.Type == "string"
	isNumber := s.Type == "integer" || s.Type == "number"
	isArray := s.Type == "array"
	isObject := s.Type == "object"
	need := func(ok bool, what string) string {
		if ok {
			return ""
		}
		t := s.Type
		if t == "" {
			t = "untyped"
		}
		return "applies to " + what + ", not to a " + t + " field"
	}
	switch key {
	case "optional":
		flags.optional = true
	case "required":
		flags.required = true
	case "nullable":
		s.Nullable = true
	case "preserveUnknownFields":
		if r := need(isObject || s.Type == "", "an object"); r != "" {
			return r
		}
		s.PreserveUnknownFields = true
	case "embeddedResource":
		if r := need(isObject, "an object"); r != "" {
			return r
		}
		s.EmbeddedResource = true
	case "enum":
		for _, v := range splitList(value) {
			jv, err := parseValue(s, v)
			if err != nil {
				return err.Error()
			}
			s.Enum = append(s.Enum, jv)
		}
	case "default":
		jv, err := parseValue(s, value)
		if err != nil {
			return err.Error()
		}
		s.Default = jv
	case "minimum", "maximum", "multipleOf":
		if r := need(isNumber, "a number"); r != "" {
			return r
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return "not a number"
		}
		switch key {
		case "minimum":
			s.Minimum = &f
		case "maximum":
			s.Maximum = &f
		default:
			if f <= 0 {
				return "must be positive"
			}
			s.MultipleOf = &f
		}
	case "exclusiveMinimum", "exclusiveMaximum":
		if r := need(isNumber, "a number"); r != "" {
			return r
		}
		if key == "exclusiveMinimum" {
			s.ExclusiveMinimum = true
		} else {
			s.ExclusiveMaximum = true
		}
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		var r string
		switch key {
		case "minLength", "maxLength":
			r = need(isString, "a string")
		case "minItems", "maxItems":
			r = need(isArray, "a list")
		default:
			r = need(isObject, "an object")
		}
		if r != "" {
			return r
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return "not a count (a non-negative integer)"
		}
		ptr := map[string]**int64{
			"minLength": &s.MinLength, "maxLength": &s.MaxLength, "minItems": &s.MinItems,
			"maxItems": &s.MaxItems, "minProperties": &s.MinProperties, "maxProperties": &s.MaxProperties,
		}[key]
		*ptr = &n
	case "pattern":
		if r := need(isString, "a string"); r != "" {
			return r
		}
		if _, err := regexp.Compile(value); err != nil {
			return "not a regular expression: " + err.Error()
		}
		s.Pattern = value
	case "format":
		if r := need(isString, "a string"); r != "" {
			return r
		}
		if !slices.Contains(knownFormats, value) {
			return "unknown format (known: " + strings.Join(knownFormats, ", ") + ")"
		}
		s.Format = value
	case "listType":
		if r := need(isArray, "a list"); r != "" {
			return r
		}
		switch value {
		case "atomic", "set":
		case "map":
			if s.Items == nil || s.Items.Type != "object" {
				return "listType=map needs a list of objects"
			}
		default:
			return "listType is atomic, set or map"
		}
		s.ListType = value
	case "listMapKeys":
		if r := need(isArray, "a list"); r != "" {
			return r
		}
		if s.Items == nil {
			return "listMapKeys needs a list of objects"
		}
		for _, k := range splitList(value) {
			p := s.Items.Properties[k]
			if p == nil {
				return fmt.Sprintf("%q is not a field (JSON name) of the list's items", k)
			}
			if !slices.Contains(s.Items.Required, k) && p.Default == nil {
				return fmt.Sprintf("key %q must be required or have a default", k)
			}
			s.ListMapKeys = append(s.ListMapKeys, k)
		}
	case "mapType":
		if r := need(isObject, "an object"); r != "" {
			return r
		}
		if value != "atomic" && value != "granular" {
			return "mapType is atomic or granular"
		}
		s.MapType = value
	}
	return ""
}

// parseValue reads text as a JSON value of s's type.
func parseValue(s *Schema, text string) (any, error) {
	switch {
	case s.Type == "string":
		return text, nil
	case s.Type == "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return n, nil
	case s.Type == "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case s.Type == "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		return b, nil
	case s.IntOrString:
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		return text, nil
	default:
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%q is not JSON: %v", text, err)
		}
		switch v.(type) {
		case map[string]any:
			if s.Type != "object" && s.Type != "" {
				return nil, fmt.Errorf("%q is not a %s", text, s.Type)
			}
		case []any:
			if s.Type != "array" && s.Type != "" {
				return nil, fmt.Errorf("%q is not a %s", text, s.Type)
			}
		}
		return v, nil
	}
}
