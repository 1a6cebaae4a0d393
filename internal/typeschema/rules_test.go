package typeschema_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubego/kubego/internal/typeschema"
)

type ruled struct {
	Name string `json:"name"`
}

func (ruled) KubeSchema() typeschema.Declaration {
	return typeschema.Declaration{
		Validations: []typeschema.Validation{{Rule: "self.name.notAFunction()"}},
		Fields:      map[string]typeschema.Field{"Name": {Validations: []typeschema.Validation{{Rule: "size(self) > 0"}}}},
	}
}

type emptyRule struct {
	Name string `json:"name"`
}

func (emptyRule) KubeSchema() typeschema.Declaration {
	return typeschema.Declaration{Validations: []typeschema.Validation{{Rule: " "}}}
}

type wholeSchema struct{}

func (wholeSchema) KubeSchema() typeschema.Declaration {
	return typeschema.Declaration{Schema: &typeschema.Schema{Type: "string", Validations: []typeschema.Validation{{Rule: "self != ''"}}}}
}

type holder struct {
	Name  string      `json:"name"`
	Whole wholeSchema `json:"whole"`
}

// refusing is a Rules that records what it is asked and refuses what it
// is told to.
type refusing struct {
	compiled, schemas []string
	compile, schema   string
	costPath          string
}

func (r *refusing) Compile(s *typeschema.Schema, vs []typeschema.Validation, root bool) string {
	for _, v := range vs {
		r.compiled = append(r.compiled, v.Rule)
	}
	return r.compile
}

func (r *refusing) CompileSchema(s *typeschema.Schema) string {
	r.schemas = append(r.schemas, s.Type)
	return r.schema
}

func (r *refusing) Costs(s *typeschema.Schema) (path, expression, reason string) {
	if r.costPath == "" {
		return "", "", ""
	}
	return r.costPath, "the rule", "too costly"
}

func TestRulesCheckTheCELOfDeclaredRules(t *testing.T) {
	wholeType := reflect.TypeFor[wholeSchema]()
	holderType := reflect.TypeFor[holder]()
	tests := []struct {
		name  string
		t     reflect.Type
		rules *refusing
		// want is the *DeclarationError expected ("" type name: none).
		wantType, wantField, wantDecl, wantReason string
	}{
		{name: "without rules a rule that does not compile is kept as declared", t: reflect.TypeFor[ruled]()},
		{name: "without rules a schema declared whole is kept as declared", t: wholeType},
		{name: "rules passing every rule build the schema", t: reflect.TypeFor[ruled](), rules: &refusing{}},
		{name: "a rule refused by Compile names the type and Validations", t: reflect.TypeFor[ruled](), rules: &refusing{compile: "rule 0 does not compile"},
			wantType: "typeschema_test.ruled", wantField: "Name", wantDecl: "Fields[Name].Validations", wantReason: "rule 0 does not compile"},
		{name: "a whole schema refused by CompileSchema names the type and Schema", t: wholeType, rules: &refusing{schema: "a rule at the root does not compile"},
			wantType: "typeschema_test.wholeSchema", wantDecl: "Schema", wantReason: "a rule at the root does not compile"},
		{name: "a cost refused names the type and field the rule's schema was built from", t: holderType, rules: &refusing{costPath: "whole"},
			wantType: "typeschema_test.holder", wantField: "Whole", wantDecl: "the rule", wantReason: "too costly"},
		{name: "a cost refused at a path no type declared names the root and the path", t: holderType, rules: &refusing{costPath: "nowhere"},
			wantType: "typeschema_test.holder", wantField: "nowhere", wantDecl: "the rule", wantReason: "too costly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules typeschema.Rules
			if tt.rules != nil {
				rules = tt.rules
			}
			s, err := typeschema.Type(tt.t, typeschema.Options{}, rules)
			if tt.wantType == "" {
				if err != nil {
					t.Fatalf("Type: %v", err)
				}
				if len(s.Validations) == 0 {
					t.Fatalf("the declared rules were dropped: %+v", s)
				}
				return
			}
			var de *typeschema.DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("Type: got %v, want a *DeclarationError", err)
			}
			if de.Type.String() != tt.wantType || de.Field != tt.wantField || de.Declaration != tt.wantDecl || de.Reason != tt.wantReason {
				t.Fatalf("got %s %q %q %q, want %s %q %q %q", de.Type, de.Field, de.Declaration, de.Reason, tt.wantType, tt.wantField, tt.wantDecl, tt.wantReason)
			}
		})
	}
}

func TestWithoutRulesARulesFormIsStillChecked(t *testing.T) {
	_, err := typeschema.Type(reflect.TypeFor[emptyRule](), typeschema.Options{}, nil)
	var de *typeschema.DeclarationError
	if !errors.As(err, &de) || de.Declaration != "Validations" || de.Reason != "rule 0 is empty" {
		t.Fatalf("Type: got %v, want a *DeclarationError: rule 0 is empty", err)
	}
}
