package apischema_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apischema"
)

// celRange is a pair with a rule declared on the type and one on a field,
// each set by the test through ruleOnType and ruleOnField.
type celRange struct {
	Start int32             `json:"start"`
	End   int32             `json:"end"`
	Name  string            `json:"name,omitempty"`
	Tags  []string          `json:"tags,omitempty" kube:"maxItems=10"`
	Meta  map[string]string `json:"meta,omitempty"`
	Host  string            `json:"host,omitempty" kube:"maxLength=63"`
}

var ruleOnType, ruleOnField apischema.Validation

func (celRange) KubeSchema() apischema.Declaration {
	d := apischema.Declaration{}
	if ruleOnType.Rule != "" {
		d.Validations = []apischema.Validation{ruleOnType}
	}
	if ruleOnField.Rule != "" {
		d.Fields = map[string]apischema.Field{"Name": {Validations: []apischema.Validation{ruleOnField}}}
	}
	return d
}

type celResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              celRange `json:"spec"`
}

func (celResource) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: "self.metadata.name.startsWith('r') && self.spec.start >= 0"}}}
}

type celWholeSchema struct{}

func (celWholeSchema) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Schema: &apischema.Schema{
		Type:       "object",
		Properties: map[string]*apischema.Schema{"a": {Type: "string", Validations: []apischema.Validation{{Rule: "self.b == 1"}}}},
	}}
}

func TestCELRuleThatDoesNotCompileFailsNamingTypeAndField(t *testing.T) {
	tests := []struct {
		name          string
		onType        apischema.Validation
		onField       apischema.Validation
		field, detail string
	}{
		{"syntax error", apischema.Validation{Rule: "self.start <="}, apischema.Validation{}, "", "Syntax error"},
		{"unknown field", apischema.Validation{Rule: "self.start <= self.finish"}, apischema.Validation{}, "", "undefined field 'finish'"},
		{"wrong type", apischema.Validation{Rule: "self.start <= 'x'"}, apischema.Validation{}, "", "no matching overload"},
		{"not a boolean", apischema.Validation{Rule: "self.start + 1"}, apischema.Validation{}, "", "must evaluate to a bool"},
		{"unknown function", apischema.Validation{Rule: "self.tags.shuffle() == self.tags"}, apischema.Validation{}, "", "undeclared reference to 'shuffle'"},
		{"authorizer is not offered to rules", apischema.Validation{Rule: "authorizer.path('/healthz').check('get').allowed()"}, apischema.Validation{}, "", "undeclared reference to 'authorizer'"},
		{"semver misused", apischema.Validation{Rule: "semver('1.0.0') < semver('2.0.0')"}, apischema.Validation{}, "", "found no matching overload for '_<_' applied to '(kubernetes.Semver, kubernetes.Semver)'"},
		{"format of an unbounded string is too expensive", apischema.Validation{Rule: "!has(self.name) || !format.dns1123Label().validate(self.name).hasValue()"}, apischema.Validation{}, "", "name (maxLength)"},
		{"messageExpression not a string", apischema.Validation{Rule: "true", MessageExpression: "self.start"}, apischema.Validation{}, "", "must evaluate to a string"},
		{"fieldPath to no field", apischema.Validation{Rule: "true", FieldPath: ".nope"}, apischema.Validation{}, "", "nope is not in the schema"},
		{"on a field: unknown field of a string", apischema.Validation{}, apischema.Validation{Rule: "self.x == 1"}, "Name", "does not support field selection"},
		{"on a field: wrong type", apischema.Validation{}, apischema.Validation{Rule: "self > 1"}, "Name", "no matching overload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ruleOnType, ruleOnField = tc.onType, tc.onField
			defer func() { ruleOnType, ruleOnField = apischema.Validation{}, apischema.Validation{} }()
			_, err := apischema.Type(reflect.TypeFor[celRange](), apischema.Options{})
			var de *apischema.DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DeclarationError", err)
			}
			if de.Type != reflect.TypeFor[celRange]() || de.Field != tc.field || !strings.Contains(de.Reason, tc.detail) {
				t.Errorf("got type %v, field %q, reason %q; want celRange, %q, %q", de.Type, de.Field, de.Reason, tc.field, tc.detail)
			}
		})
	}
}

func TestCELRulesThatCompileAreKept(t *testing.T) {
	ruleOnType = apischema.Validation{Rule: "self.start <= self.end && (!has(self.tags) || self.tags.isSorted())", MessageExpression: "'bad range ' + (has(self.name) ? self.name : '')"}
	ruleOnField = apischema.Validation{Rule: "self == oldSelf", Message: "immutable"}
	defer func() { ruleOnType, ruleOnField = apischema.Validation{}, apischema.Validation{} }()
	s, err := apischema.Resource(reflect.TypeFor[celResource](), apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Validations) != 1 || len(s.Properties["spec"].Validations) != 1 || len(s.Properties["spec"].Properties["name"].Validations) != 1 {
		t.Errorf("rules not kept: %+v", s)
	}
}

func TestCELRulesOfTheFormatAndSemverLibrariesAreKept(t *testing.T) {
	ruleOnType = apischema.Validation{
		Rule:              "!has(self.host) || !format.dns1123Label().validate(self.host).hasValue()",
		MessageExpression: "format.named('dns1123Label').value().validate(self.host).value()[0]",
	}
	ruleOnField = apischema.Validation{Rule: "isSemver(self, true) && semver(self, true).isGreaterThan(semver('1.0.0')) && semver(self, true).major() < 3"}
	defer func() { ruleOnType, ruleOnField = apischema.Validation{}, apischema.Validation{} }()
	s, err := apischema.Resource(reflect.TypeFor[celResource](), apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Properties["spec"].Validations) != 1 || len(s.Properties["spec"].Properties["name"].Validations) != 1 {
		t.Errorf("rules not kept: %+v", s)
	}
}

func TestCELRuleInADeclaredSchemaIsCompiled(t *testing.T) {
	_, err := apischema.Type(reflect.TypeFor[celWholeSchema](), apischema.Options{})
	var de *apischema.DeclarationError
	if !errors.As(err, &de) || de.Declaration != "Schema" || !strings.Contains(de.Reason, "a rule at a does not compile") {
		t.Fatalf("got %v, want a *DeclarationError on Schema", err)
	}
}

// costlyTags declares a rule over every string of a list with no bounds:
// kube-apiserver refuses it for its estimated cost.
type costlyTags struct {
	Tags []string `json:"tags"`
}

func (costlyTags) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"Tags": {Validations: []apischema.Validation{{Rule: "self.all(t, t.contains('a'))"}}}}}
}

type shortTag string

func (shortTag) KubeSchema() apischema.Declaration { return apischema.Declaration{Tag: "maxLength=10"} }

// boundedTags declares the same rule on a bounded list of bounded strings.
type boundedTags struct {
	Tags []shortTag `json:"tags" kube:"maxItems=10"`
}

func (boundedTags) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Fields: map[string]apischema.Field{"Tags": {Validations: []apischema.Validation{{Rule: "self.all(t, t.contains('a'))"}}}}}
}

// manyItemRules holds rules on the items of unbounded lists, each under
// the limit of one rule, together over the limit of a schema.
type manyItemRules struct {
	A []itemRule `json:"a"`
	B []itemRule `json:"b"`
	C []itemRule `json:"c"`
	D []itemRule `json:"d"`
	E []itemRule `json:"e"`
	F []itemRule `json:"f"`
	G []itemRule `json:"g"`
	H []itemRule `json:"h"`
	I []itemRule `json:"i"`
	J []itemRule `json:"j"`
	K []itemRule `json:"k"`
}

type itemRule string

func (itemRule) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Tag: "maxLength=20", Validations: []apischema.Validation{{Rule: "self.contains('a')"}}}
}

func TestCELRulesOverKubeAPIServersCostLimitsFailNamingTheBoundsThatHelp(t *testing.T) {
	tests := []struct {
		name  string
		typ   reflect.Type
		owner reflect.Type
		field string
		want  []string
	}{
		{"rule over an unbounded list of unbounded strings", reflect.TypeFor[costlyTags](), reflect.TypeFor[costlyTags](), "Tags",
			[]string{"exceeds kube-apiserver's limit of 10000000 for one rule", "tags (maxItems), tags[*] (maxLength); declaring those bounds"}},
		{"rules adding up over the limit of a schema", reflect.TypeFor[manyItemRules](), reflect.TypeFor[itemRule](), "",
			[]string{"add up to", "over kube-apiserver's limit of 100000000 for one schema", "request: a (maxItems);"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := apischema.Type(tc.typ, apischema.Options{})
			var de *apischema.DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DeclarationError", err)
			}
			if de.Type != tc.owner || de.Field != tc.field {
				t.Errorf("got type %v, field %q; want %v, %q", de.Type, de.Field, tc.owner, tc.field)
			}
			for _, w := range tc.want {
				if !strings.Contains(de.Reason, w) {
					t.Errorf("reason %q, want it to say %q", de.Reason, w)
				}
			}
			t.Log(err)
		})
	}
	if _, err := apischema.Type(reflect.TypeFor[boundedTags](), apischema.Options{}); err != nil {
		t.Errorf("bounded list: %v", err)
	}
}
