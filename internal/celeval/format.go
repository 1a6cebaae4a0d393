package celeval

import (
	"fmt"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// formatType is Kubernetes' kubernetes.NamedFormat.
var formatType = cel.ObjectType("kubernetes.NamedFormat")

// Sizes kube-apiserver charges for formats checked without a regular
// expression of their own: an estimate of an equivalent one.
const (
	base64RegexSize = 84
	urlRegexSize    = 1103
	// maxFormatRegexSize is the regular expression size every format is
	// estimated at before evaluation, when which format is not known.
	maxFormatRegexSize = 128
	// maxFormatSize bounds the size of a format value, for the estimated
	// cost of comparing two.
	maxFormatSize = 64
)

// namedFormat is one format of Kubernetes' format library: its checks and
// the regular expression size its runtime cost is counted with.
type namedFormat struct {
	name      string
	check     func(string) []string
	regexSize int
}

// strfmtCheck checks s against a format of the OpenAPI format registry,
// failing with msg.
func strfmtCheck(format, msg string) func(string) []string {
	return func(s string) []string {
		if strfmt.Default.Validates(format, s) {
			return nil
		}
		return []string{msg}
	}
}

// namedFormats are the formats by the names format.named and the format.*
// functions take, with kube-apiserver's checks and messages.
var namedFormats = map[string]namedFormat{
	"dns1123Label":           {check: func(s string) []string { return apivalidation.NameIsDNSLabel(s, false) }, regexSize: 30},
	"dns1123Subdomain":       {check: func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, false) }, regexSize: 60},
	"dns1035Label":           {check: func(s string) []string { return apivalidation.NameIsDNS1035Label(s, false) }, regexSize: 30},
	"qualifiedName":          {check: validation.IsQualifiedName, regexSize: 60},
	"dns1123LabelPrefix":     {check: func(s string) []string { return apivalidation.NameIsDNSLabel(s, true) }, regexSize: 30},
	"dns1123SubdomainPrefix": {check: func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, true) }, regexSize: 60},
	"dns1035LabelPrefix":     {check: func(s string) []string { return apivalidation.NameIsDNS1035Label(s, true) }, regexSize: 30},
	"labelValue":             {check: validation.IsValidLabelValue, regexSize: 40},
	"uri": {check: func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}, regexSize: urlRegexSize},
	"uuid":     {check: strfmtCheck("uuid", "does not match the UUID format"), regexSize: len(strfmt.UUIDPattern)},
	"byte":     {check: strfmtCheck("byte", "invalid base64"), regexSize: base64RegexSize},
	"date":     {check: strfmtCheck("date", "invalid date"), regexSize: len(strfmt.DateTimePattern)},
	"datetime": {check: strfmtCheck("datetime", "invalid datetime"), regexSize: len(strfmt.DateTimePattern)},
}

// formatValue is a format in an expression.
type formatValue struct{ f namedFormat }

func (v formatValue) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", t)
}

func (v formatValue) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case formatType:
		return v
	case types.TypeType:
		return formatType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", formatType, t)
}

func (v formatValue) Equal(o ref.Val) ref.Val {
	w, ok := o.(formatValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.f.name == w.f.name)
}

func (v formatValue) Type() ref.Type { return formatType }
func (v formatValue) Value() any     { return v.f.name }

// formatFunctions declares Kubernetes' format library: format.named(name)
// (an optional format), format.<name>() for each named format, and
// <format>.validate(string), none when the string is valid, else the list
// of its problems.
func formatFunctions() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(formatType), cel.UnaryBinding(func(n ref.Val) ref.Val {
			name, ok := n.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(n)
			}
			f, ok := namedFormats[string(name)]
			if !ok {
				return types.OptionalNone
			}
			f.name = string(name)
			return types.OptionalOf(formatValue{f})
		}))),
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{formatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)), cel.BinaryBinding(func(fv, s ref.Val) ref.Val {
			f, ok := fv.(formatValue)
			if !ok {
				return types.MaybeNoSuchOverloadErr(fv)
			}
			str, ok := s.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(s)
			}
			problems := f.f.check(string(str))
			if len(problems) == 0 {
				return types.OptionalNone
			}
			return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, problems))
		}))),
	}
	for name, f := range namedFormats {
		f.name = name
		val := formatValue{f}
		fn := "format." + name
		opts = append(opts, cel.Function(fn, cel.Overload(fn, nil, formatType, cel.FunctionBinding(func(...ref.Val) ref.Val { return val }))))
	}
	return opts
}
