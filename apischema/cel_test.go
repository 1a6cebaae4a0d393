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
	Tags  []string          `json:"tags,omitempty"`
	Meta  map[string]string `json:"meta,omitempty"`
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
		{"not a boolean", apischema.Validation{Rule: "self.start + 1"}, apischema.Validation{}, "", "must evaluate to bool"},
		{"unknown function", apischema.Validation{Rule: "self.tags.shuffle() == self.tags"}, apischema.Validation{}, "", "undeclared reference to 'shuffle'"},
		{"unsupported Kubernetes function", apischema.Validation{Rule: "semver('1.0.0') == semver('1.0.0')"}, apischema.Validation{}, "", "Kubernetes' semver library is not supported"},
		{"messageExpression not a string", apischema.Validation{Rule: "true", MessageExpression: "self.start"}, apischema.Validation{}, "", "must evaluate to string"},
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
	ruleOnType = apischema.Validation{Rule: "self.start <= self.end && (!has(self.tags) || self.tags.isSorted())", MessageExpression: "'bad range ' + string(self.start)"}
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

func TestCELRuleInADeclaredSchemaIsCompiled(t *testing.T) {
	_, err := apischema.Type(reflect.TypeFor[celWholeSchema](), apischema.Options{})
	var de *apischema.DeclarationError
	if !errors.As(err, &de) || de.Declaration != "Schema" || !strings.Contains(de.Reason, "a rule at a does not compile") {
		t.Fatalf("got %v, want a *DeclarationError on Schema", err)
	}
}
