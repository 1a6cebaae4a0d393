package apischema_test

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/kubego/kubego/apischema"
)

// FuzzKubeTag builds schemas of fields of several kinds with arbitrary kube
// tags: every tag gives a schema or a *DeclarationError, never a panic.
func FuzzKubeTag(f *testing.F) {
	for _, seed := range []string{
		"minLength=1;pattern=^a\\;b$", "enum=a|b;default=a", "listType=map;listMapKeys=name", "items.pattern=x",
		"minimum=1;maximum=2;exclusiveMaximum", "mapType=atomic", "nullable;optional", "default={\"a\":1}", ";;=;",
	} {
		f.Add(seed)
	}
	types := []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[int32](), reflect.TypeFor[float64](), reflect.TypeFor[bool](),
		reflect.TypeFor[[]string](), reflect.TypeFor[[]keyed](), reflect.TypeFor[map[string]int](), reflect.TypeFor[keyed](), reflect.TypeFor[any](),
	}
	f.Fuzz(func(t *testing.T, tag string) {
		for _, ft := range types {
			st := reflect.StructOf([]reflect.StructField{{Name: "F", Type: ft, Tag: reflect.StructTag(`json:"f" kube:` + strconv.Quote(tag))}})
			_, err := apischema.Type(st, apischema.Options{})
			if err != nil && !errors.Is(err, apischema.ErrDeclaration) {
				t.Fatalf("%s %q: %v", ft, tag, err)
			}
		}
	})
}
