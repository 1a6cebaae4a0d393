package apischema_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubego/kubego/apischema"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
)

// structWith returns a struct type of one field F of type ft with the
// given kube tag.
func structWith(ft reflect.Type, tag string) reflect.Type {
	return reflect.StructOf([]reflect.StructField{{Name: "F", Type: ft, Tag: reflect.StructTag(`json:"f,omitempty" kube:"` + tag + `"`)}})
}

type keyed struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

func TestTagTypoOrMalformedValueFailsNamingTheField(t *testing.T) {
	str, i32, f64 := reflect.TypeFor[string](), reflect.TypeFor[int32](), reflect.TypeFor[float64]()
	strs, items, m := reflect.TypeFor[[]string](), reflect.TypeFor[[]keyed](), reflect.TypeFor[map[string]string]()
	tests := []struct {
		name string
		ft   reflect.Type
		tag  string
		want string
	}{
		{"unknown key", str, "patern=^a$", "unknown declaration"},
		{"key declared twice", str, "minLength=1;minLength=2", "declared twice"},
		{"optional with a value", str, "optional=true", "takes no value"},
		{"required with a value", str, "required=yes", "takes no value"},
		{"optional and required", str, "optional;required", "not both"},
		{"nullable with a value", str, "nullable=1", "takes no value"},
		{"preserveUnknownFields on a string", str, "preserveUnknownFields", "applies to an object"},
		{"embeddedResource on a string", str, "embeddedResource", "applies to an object"},
		{"enum value of the wrong type", i32, "enum=1|two", "not an integer"},
		{"enum without values", str, "enum=", "needs a value"},
		{"default of the wrong type", i32, "default=ten", "not an integer"},
		{"default not JSON on an object", m, "default={a:1}", "not JSON"},
		{"minimum not a number", i32, "minimum=low", "not a number"},
		{"maximum on a string", str, "maximum=3", "applies to a number"},
		{"exclusiveMinimum without minimum", f64, "exclusiveMinimum", "needs the bound"},
		{"exclusiveMaximum on a string", str, "exclusiveMaximum", "applies to a number"},
		{"multipleOf zero", i32, "multipleOf=0", "must be positive"},
		{"minLength on an integer", i32, "minLength=1", "applies to a string"},
		{"maxLength negative", str, "maxLength=-1", "not a count"},
		{"pattern not a regular expression", str, "pattern=([a-z]", "not a regular expression"},
		{"format unknown", str, "format=emial", "unknown format"},
		{"minItems on a string", str, "minItems=1", "applies to a list"},
		{"maxItems not a count", strs, "maxItems=many", "not a count"},
		{"listType unknown", strs, "listType=sett", "atomic, set or map"},
		{"listType map of strings", strs, "listType=map;listMapKeys=name", "list of objects"},
		{"listType map without keys", items, "listType=map", "needs listMapKeys"},
		{"listMapKeys without listType", items, "listMapKeys=name", "needs listType=map"},
		{"listMapKeys naming no field", items, "listType=map;listMapKeys=nmae", "not a field"},
		{"listMapKeys optional without default", items, "listType=map;listMapKeys=port", "required or have a default"},
		{"minProperties on a string", str, "minProperties=1", "applies to an object"},
		{"maxProperties not a count", m, "maxProperties=x", "not a count"},
		{"mapType unknown", m, "mapType=granualr", "atomic or granular"},
		{"items. on a string", str, "items.pattern=a", "list only"},
		{"items. typo", strs, "items.patern=a", "unknown declaration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := apischema.Type(structWith(tc.ft, tc.tag), apischema.Options{})
			var de *apischema.DeclarationError
			if !errors.As(err, &de) || !errors.Is(err, apischema.ErrDeclaration) {
				t.Fatalf("got %v, want a *DeclarationError", err)
			}
			if de.Field != "F" || !strings.Contains(err.Error(), ".F:") || !strings.Contains(de.Reason, tc.want) {
				t.Fatalf("got %q (field %q), want the field F named and %q", err, de.Field, tc.want)
			}
		})
	}
}

func TestMalformedStructTagFails(t *testing.T) {
	st := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[string](), Tag: `json:"f" kube:"pattern=^\S$"`}})
	_, err := apischema.Type(st, apischema.Options{})
	var de *apischema.DeclarationError
	if !errors.As(err, &de) || de.Field != "F" {
		t.Fatalf("got %v, want a *DeclarationError on F", err)
	}
}

func TestWellFormedTagsApply(t *testing.T) {
	s, err := apischema.Type(structWith(reflect.TypeFor[[]keyed](), `listType=map;listMapKeys=name;maxItems=3;nullable`), apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Properties["f"]
	if f.ListType != "map" || f.ListMapKeys[0] != "name" || *f.MaxItems != 3 || !f.Nullable {
		t.Fatalf("%+v", f)
	}
	s, err = apischema.Type(structWith(reflect.TypeFor[string](), `pattern=^a\\;b$;default=x`), apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Properties["f"]; f.Pattern != "^a;b$" || f.Default != "x" {
		t.Fatalf("escaped ; : %+v", f)
	}
	s, err = apischema.Type(structWith(reflect.TypeFor[string](), `enum=a\\|b|c|;default=a|b`), apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Properties["f"]; len(f.Enum) != 3 || f.Enum[0] != "a|b" || f.Enum[1] != "c" || f.Enum[2] != "" || f.Default != "a|b" {
		t.Fatalf("escaped | : enum %q default %v", f.Enum, f.Default)
	}
}

type typoField struct {
	Name string `json:"name"`
}

func (typoField) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"Nmae": {Description: "x"}}}
}

type badTypeTag string

func (badTypeTag) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Tag: "enmu=a|b"}
}

type typeRequired string

func (typeRequired) KubeSchema() apischema.Declaration { return apischema.Declaration{Tag: "required"} }

type emptyRule struct{}

func (emptyRule) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: " ", Message: "m"}}}
}

type badReason struct{}

func (badReason) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: "true", Reason: "FieldValueWrong"}}}
}

type badFieldPath struct{}

func (badFieldPath) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: "true", FieldPath: "spec.x"}}}
}

type fieldRuleEmpty struct {
	A string `json:"a"`
}

func (fieldRuleEmpty) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"A": {Validations: []apischema.Validation{{}}}}}
}

type schemaAndMore struct{}

func (schemaAndMore) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Schema: &apischema.Schema{Type: "string"}, Tag: "minLength=1"}
}

type fieldsOnString string

func (fieldsOnString) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"X": {}}}
}

func TestDeclarerTypoOrMalformedValueFailsNamingTheType(t *testing.T) {
	tests := []struct {
		name string
		t    reflect.Type
		want string
	}{
		{"Fields key naming no field", reflect.TypeFor[typoField](), "Fields[Nmae]"},
		{"Tag with an unknown key", reflect.TypeFor[badTypeTag](), "enmu"},
		{"Tag required on a type", reflect.TypeFor[typeRequired](), "not a type"},
		{"empty CEL rule", reflect.TypeFor[emptyRule](), "empty"},
		{"CEL reason unknown", reflect.TypeFor[badReason](), "FieldValueWrong"},
		{"CEL fieldPath without a dot", reflect.TypeFor[badFieldPath](), "must start with"},
		{"empty CEL rule on a field", reflect.TypeFor[fieldRuleEmpty](), "Fields[A].Validations"},
		{"Schema with other declarations", reflect.TypeFor[schemaAndMore](), "nothing else"},
		{"Fields on a string type", reflect.TypeFor[fieldsOnString](), "only a struct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := apischema.Type(tc.t, apischema.Options{})
			var de *apischema.DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DeclarationError", err)
			}
			if de.Type != tc.t || !strings.Contains(err.Error(), tc.t.Name()) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, want %s named and %q", err, tc.t.Name(), tc.want)
			}
		})
	}
}

func TestDeclarationsByPath(t *testing.T) {
	opts := apischema.Options{Declarations: map[string]string{
		"spec.jobTemplate.spec.template.spec.containers[*].image": "minLength=1;required",
		"spec.suspend": "required",
	}}
	s, err := apischema.ResourceFor[cronv1.CronJob](opts)
	if err != nil {
		t.Fatal(err)
	}
	ctr := s.Properties["spec"].Properties["jobTemplate"].Properties["spec"].Properties["template"].Properties["spec"].Properties["containers"].Items
	if *ctr.Properties["image"].MinLength != 1 || !slices.Contains(ctr.Required, "image") || !slices.Contains(s.Properties["spec"].Required, "suspend") {
		t.Fatalf("image %+v, required %v", ctr.Properties["image"], ctr.Required)
	}
	for _, decls := range []map[string]string{
		{"spec.jobTemplate.spec.template.spec.containers[*].imagee": "minLength=1"},
		{"spec.schedule": "minLenght=1"},
		{"": "required"},
	} {
		_, err := apischema.ResourceFor[cronv1.CronJob](apischema.Options{Declarations: decls})
		var de *apischema.DeclarationError
		if !errors.As(err, &de) {
			t.Fatalf("%v: got %v, want a *DeclarationError", decls, err)
		}
		for path := range decls {
			if de.Field != path {
				t.Fatalf("%v: error names %q", decls, de.Field)
			}
		}
	}
}

type declaredList struct{}

func (declaredList) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Schema: &apischema.Schema{Type: "array"}}
}

// A declared schema without items takes list declarations without a panic.
func TestListDeclarationsOnADeclaredSchemaWithoutItems(t *testing.T) {
	for _, tag := range []string{"listMapKeys=name", "listType=map;listMapKeys=name", "items.pattern=a"} {
		_, err := apischema.Type(structWith(reflect.TypeFor[declaredList](), tag), apischema.Options{})
		if !errors.Is(err, apischema.ErrDeclaration) {
			t.Errorf("%s: got %v", tag, err)
		}
	}
}
