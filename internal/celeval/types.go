package celeval

import (
	"encoding/base64"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// node is one structural schema, read from its JSON form.
type node map[string]any

func (n node) str(k string) string {
	s, _ := n[k].(string)
	return s
}

func (n node) flag(k string) bool {
	b, _ := n[k].(bool)
	return b
}

func (n node) child(k string) node {
	m, _ := n[k].(map[string]any)
	return node(m)
}

func (n node) props() map[string]any {
	m, _ := n["properties"].(map[string]any)
	return m
}

// kind is how a schema's values are typed in CEL.
type kind int

const (
	kindDyn kind = iota
	kindObject
	kindMap
	kindList
	kindString
	kindBytes
	kindDuration
	kindTimestamp
	kindInt
	kindDouble
	kindBool
)

// kindOf says how the values of n are typed in CEL, as kube-apiserver
// types them: an int-or-string and an object that keeps unknown fields
// but declares none are dyn; byte, duration, date and date-time strings
// are bytes, durations and timestamps.
func kindOf(n node) kind {
	if n == nil || n.flag("x-kubernetes-int-or-string") {
		return kindDyn
	}
	switch n.str("type") {
	case "object":
		switch {
		case n.props() != nil || n.flag("x-kubernetes-embedded-resource"):
			return kindObject
		case n.child("additionalProperties") != nil:
			return kindMap
		case n.flag("x-kubernetes-preserve-unknown-fields"):
			return kindDyn
		}
		return kindObject
	case "array":
		return kindList
	case "string":
		switch n.str("format") {
		case "byte":
			return kindBytes
		case "duration":
			return kindDuration
		case "date", "date-time":
			return kindTimestamp
		}
		return kindString
	case "integer":
		return kindInt
	case "number":
		return kindDouble
	case "boolean":
		return kindBool
	}
	return kindDyn
}

// typeBuilder declares the object types of one schema tree in a provider.
type typeBuilder struct {
	p *provider
}

// celType returns the CEL type of the schema n at the type name name
// (its path), declaring the object types under it. root and embedded
// objects carry apiVersion, kind and metadata.name/generateName.
func (b typeBuilder) celType(n node, name string, root bool) *types.Type {
	switch kindOf(n) {
	case kindObject:
		fields := map[string]*types.Type{}
		for k, v := range n.props() {
			c, ok := Escape(k)
			if !ok {
				continue
			}
			fields[c] = b.celType(node(asMap(v)), name+"."+c, false)
		}
		if root || n.flag("x-kubernetes-embedded-resource") {
			fields["apiVersion"] = types.StringType
			fields["kind"] = types.StringType
			mname := name + ".metadata"
			b.p.objects[mname] = map[string]*types.Type{"name": types.StringType, "generateName": types.StringType}
			fields["metadata"] = types.NewObjectType(mname)
		}
		b.p.objects[name] = fields
		return types.NewObjectType(name)
	case kindMap:
		return types.NewMapType(types.StringType, b.celType(n.child("additionalProperties"), name+"@value", false))
	case kindList:
		return types.NewListType(b.celType(n.child("items"), name+"@item", false))
	case kindString:
		return types.StringType
	case kindBytes:
		return types.BytesType
	case kindDuration:
		return types.DurationType
	case kindTimestamp:
		return types.TimestampType
	case kindInt:
		return types.IntType
	case kindDouble:
		return types.DoubleType
	case kindBool:
		return types.BoolType
	}
	return types.DynType
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// provider adds the object types of one schema to a base provider.
type provider struct {
	base    types.Provider
	objects map[string]map[string]*types.Type
}

func (p *provider) EnumValue(name string) ref.Val { return p.base.EnumValue(name) }

func (p *provider) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.base.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if f, ok := p.objects[name]; ok {
		return slices.Sorted(maps.Keys(f)), true
	}
	return p.base.FindStructFieldNames(name)
}

func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if f, ok := p.objects[name]; ok {
		t, ok := f[field]
		if !ok {
			return nil, false
		}
		// No IsSet or GetFrom: the values are maps at run time, read by key.
		return &types.FieldType{Type: t}, true
	}
	return p.base.FindStructFieldType(name, field)
}

func (p *provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("objects of type %s cannot be built in an expression", name)
	}
	return p.base.NewValue(name, fields)
}

// value converts the JSON value v of the schema n to what the CEL
// program reads: object keys escaped (fields no expression can name
// dropped), integers as int64 and numbers as float64, formatted strings
// as bytes, durations and timestamps. A value that does not have its
// schema's type is left as it is (the structural validation refuses it).
func value(n node, v any, root bool) any {
	switch kindOf(n) {
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		props := n.props()
		for k, e := range m {
			c, ok := Escape(k)
			if !ok {
				continue
			}
			if ps, known := props[k]; known {
				out[c] = value(node(asMap(ps)), e, false)
				continue
			}
			if root || n.flag("x-kubernetes-embedded-resource") {
				switch k {
				case "apiVersion", "kind":
					out[k] = e
				case "metadata":
					if md, ok := e.(map[string]any); ok {
						meta := map[string]any{}
						for _, f := range []string{"name", "generateName"} {
							if s, ok := md[f].(string); ok {
								meta[f] = s
							}
						}
						out[k] = meta
					}
				}
			}
		}
		return out
	case kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		add := n.child("additionalProperties")
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = value(add, e, false)
		}
		return out
	case kindList:
		l, ok := v.([]any)
		if !ok {
			return v
		}
		items := n.child("items")
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = value(items, e, false)
		}
		var keys []string
		for _, k := range asSlice(n["x-kubernetes-list-map-keys"]) {
			if s, ok := k.(string); ok {
				keys = append(keys, s)
			}
		}
		return typedList(out, n.str("x-kubernetes-list-type"), keys)
	case kindInt:
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			return int64(f)
		}
	case kindDouble:
		if i, ok := v.(int64); ok {
			return float64(i)
		}
	case kindBytes:
		if s, ok := v.(string); ok {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return b
			}
		}
	case kindDuration:
		if s, ok := v.(string); ok {
			if d, err := time.ParseDuration(s); err == nil {
				return d
			}
		}
	case kindTimestamp:
		if s, ok := v.(string); ok {
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
				if t, err := time.Parse(layout, s); err == nil {
					return t
				}
			}
		}
	case kindDyn:
		return dynValue(v)
	}
	return v
}

// dynValue makes the numbers of an untyped JSON value CEL numbers: a whole
// float64 that JSON decoding produced stays a double, as kube-apiserver
// keeps it.
func dynValue(v any) any {
	switch t := v.(type) {
	case int:
		return int64(t)
	case int32:
		return int64(t)
	}
	return v
}

var identifier = regexp.MustCompile(`^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$`)

var reserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true, "if": true,
	"import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true,
}

// Escape returns the name by which a CEL expression reads the property
// name, as kube-apiserver escapes it: "__" as "__underscores__", "." as
// "__dot__", "-" as "__dash__", "/" as "__slash__", a CEL reserved word w
// as "__w__". ok is false for a name no expression can read (it does not
// match [a-zA-Z_.-/][a-zA-Z0-9_.-/]*).
func Escape(name string) (escaped string, ok bool) {
	if reserved[name] {
		return "__" + name + "__", true
	}
	if !identifier.MatchString(name) {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func itoa(i int) string { return strconv.Itoa(i) }
