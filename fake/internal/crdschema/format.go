package crdschema

import (
	"fmt"
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// crdFormats are the string formats kube-apiserver checks in custom
// resources (named without dashes, as the format registry compares them);
// other formats are ignored, as kube-apiserver strips them from the
// schema it validates with.
var crdFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true,
	"ipv4": true, "ipv6": true, "cidr": true, "mac": true,
	"uuid": true, "uuid3": true, "uuid4": true, "uuid5": true,
	"isbn": true, "isbn10": true, "isbn13": true, "creditcard": true, "ssn": true,
	"hexcolor": true, "rgbcolor": true, "byte": true, "password": true,
	"date": true, "duration": true, "datetime": true,
	"k8sshortname": true, "k8slongname": true,
}

// formatErrors checks the string t against the schema's format with the
// format registry kube-apiserver uses.
func (s Schema) formatErrors(t string, path *field.Path) field.ErrorList {
	f, _ := s["format"].(string)
	if f == "" || !crdFormats[strings.ReplaceAll(f, "-", "")] || (s.typ() != "" && s.typ() != "string") {
		return nil
	}
	if strfmt.Default.Validates(f, t) {
		return nil
	}
	return field.ErrorList{field.TypeInvalid(path, t, fmt.Sprintf("%s in body must be of type %s: %q", pathName(path), f, t))}
}

// rangeErrors checks a number against the range of its schema's format
// (int32 for an integer, float for a number), as kube-apiserver does: an
// error at no field, with an empty value.
func (s Schema) rangeErrors(f float64, path *field.Path) field.ErrorList {
	format, _ := s["format"].(string)
	out := false
	switch {
	case s.typ() == "integer" && format == "int32":
		out = f < math.MinInt32 || f > math.MaxInt32
	case s.typ() == "number" && format == "float":
		out = math.Abs(f) > math.MaxFloat32
	}
	if !out {
		return nil
	}
	return field.ErrorList{field.Invalid(nil, "", fmt.Sprintf("Checked value must be of type %s with format %s in %s", s.typ(), format, pathName(path)))}
}
