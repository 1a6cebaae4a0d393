package apply_test

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apply"
)

// uncompiled declares a rule that does not compile: its definition's
// build refuses it, but how it merges is known without compiling it.
type uncompiled struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              uncompiledSpec `json:"spec"`
}

type uncompiledSpec struct {
	Ports []string `json:"ports" kube:"listType=set"`
}

func (uncompiledSpec) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: "self.ports.notAFunction()"}}}
}

// malformed declares a pattern under a misspelt key.
type malformed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              string `json:"spec" kube:"patern=^a"`
}

func TestTypeOfReadsTheStructureWithoutCompilingRules(t *testing.T) {
	if _, err := apischema.ResourceFor[uncompiled](apischema.Options{}); !errors.Is(err, apischema.ErrDeclaration) {
		t.Fatalf("apischema.ResourceFor: got %v, want the rule refused", err)
	}
	ty, err := apply.TypeOf[*uncompiled]()
	if err != nil {
		t.Fatalf("TypeOf: %v", err)
	}
	c, err := ty.Configure(func(u *uncompiled) { u.Name = "a"; u.Spec.Ports = []string{"http"} })
	if err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if got := configJSON(t, c); got != `{"metadata":{"name":"a"},"spec":{"ports":["http"]}}` {
		t.Fatalf("configuration: got %s", got)
	}
}

func TestTypeOfRefusalsAreApischemaErrors(t *testing.T) {
	_, err := apply.TypeOf[*malformed]()
	var de *apischema.DeclarationError
	if !errors.As(err, &de) || de.Field != "Spec" || de.Declaration != "patern=^a" {
		t.Fatalf("TypeOf: got %v, want an *apischema.DeclarationError naming Spec and patern=^a", err)
	}
	if !errors.Is(err, apply.ErrUnsupported) {
		t.Fatalf("TypeOf: got %v, want it to wrap apply.ErrUnsupported", err)
	}
}
