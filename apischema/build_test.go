package apischema_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/apischema/apischematest"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
)

func schemaJSON(t *testing.T, s *apischema.Schema) string {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestGoKindsMapToOpenAPITypes(t *testing.T) {
	s, err := apischema.ResourceFor[apischematest.Sample](apischema.Options{Descriptions: apischema.NoDescriptions})
	if err != nil {
		t.Fatal(err)
	}
	spec := s.Properties["spec"]
	for name, want := range map[string]string{
		"bool":        `{"type":"boolean"}`,
		"int":         `{"type":"integer","format":"int64"}`,
		"int8":        `{"type":"integer","format":"int32"}`,
		"uint32":      `{"type":"integer","format":"int64"}`,
		"float32":     `{"type":"number","format":"float"}`,
		"float64":     `{"type":"number","format":"double"}`,
		"bytes":       `{"type":"string","format":"byte"}`,
		"array":       `{"type":"array","maxItems":2,"minItems":2,"items":{"type":"integer","format":"int32"}}`,
		"mapOfList":   `{"type":"object","additionalProperties":{"type":"array","nullable":true,"items":{"type":"integer","format":"int64"}}}`,
		"time":        `{"type":"string","format":"date-time"}`,
		"microTime":   `{"type":"string","format":"date-time"}`,
		"duration":    `{"type":"string"}`,
		"intOrString": `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`,
		"raw":         `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
		"free":        `{"x-kubernetes-preserve-unknown-fields":true}`,
		"flat":        `{"type":"string"}`,
		"note":        `{"type":"string","nullable":true}`,
		"color":       `{"type":"string","enum":["red","green","blue"]}`,
	} {
		if got := schemaJSON(t, spec.Properties[name]); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	for _, absent := range []string{"Skipped", "Inline", "hidden"} {
		if spec.Properties[absent] != nil {
			t.Errorf("%s has a schema", absent)
		}
	}
	if want := []string{"array", "bool", "mustHave", "nested", "string"}; !slices.Equal(spec.Required, want) {
		t.Errorf("required %v, want %v", spec.Required, want)
	}
	if s.Properties["metadata"].Type != "object" || s.Properties["metadata"].Properties != nil || len(s.Required) != 1 || s.Required[0] != "spec" {
		t.Errorf("root: metadata %+v, required %v", s.Properties["metadata"], s.Required)
	}
	if e := spec.Properties["embedded"]; !e.EmbeddedResource || e.Properties["metadata"].Properties != nil || e.Properties["data"] == nil {
		t.Errorf("embedded resource: %s", schemaJSON(t, e))
	}
}

// A type of k8s.io/api gets the schema kube-apiserver publishes: list
// types, map keys, enums and the defaults of map keys included.
func TestBuiltInTypesGetThePublishedSchema(t *testing.T) {
	s, err := apischema.For[batchv1.JobTemplateSpec](apischema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pod := s.Properties["spec"].Properties["template"].Properties["spec"]
	containers := pod.Properties["containers"]
	if containers.ListType != "map" || !slices.Equal(containers.ListMapKeys, []string{"name"}) || !slices.Contains(pod.Required, "containers") {
		t.Errorf("containers: %s %v", containers.ListType, containers.ListMapKeys)
	}
	ports := containers.Items.Properties["ports"]
	if !slices.Equal(ports.ListMapKeys, []string{"containerPort", "protocol"}) || ports.Items.Properties["protocol"].Default != "TCP" {
		t.Errorf("ports: %s", schemaJSON(t, ports))
	}
	if ports.Items.Properties["containerPort"].Default != nil {
		t.Errorf("a zero default that is no map key stayed: %s", schemaJSON(t, ports.Items.Properties["containerPort"]))
	}
	if name := pod.Properties["imagePullSecrets"].Items.Properties["name"]; name.Default != "" {
		t.Errorf("the zero default of a map key was dropped: %s", schemaJSON(t, name))
	}
	if labels := s.Properties["spec"].Properties["template"].Properties["metadata"].Properties["labels"]; labels == nil {
		t.Error("a template's metadata lost its fields")
	}
	if cpu := containers.Items.Properties["resources"].Properties["limits"].AdditionalProperties; !cpu.IntOrString || cpu.Pattern == "" {
		t.Errorf("quantity: %s", schemaJSON(t, cpu))
	}
	text := schemaJSON(t, s)
	for _, banned := range []string{"$ref", "allOf", "oneOf", "x-kubernetes-patch", "x-kubernetes-unions", `"format":"int-or-string"`} {
		if strings.Contains(text, banned) {
			t.Errorf("the schema holds %s", banned)
		}
	}
}

func TestDescriptionsAreKeptTrimmedOrDropped(t *testing.T) {
	full, _ := apischema.For[corev1.PodSpec](apischema.Options{})
	none, _ := apischema.For[corev1.PodSpec](apischema.Options{Descriptions: apischema.NoDescriptions})
	trimmed, _ := apischema.For[corev1.PodSpec](apischema.Options{Descriptions: apischema.TrimDescriptions(80)})
	if strings.Contains(schemaJSON(t, none), "description") {
		t.Error("NoDescriptions kept a description")
	}
	if full.Properties["containers"].Description == "" {
		t.Error("descriptions were dropped by default")
	}
	trimmed.Walk(func(path string, s *apischema.Schema) {
		if len(s.Description) > 80 {
			t.Errorf("%s: %d bytes", path, len(s.Description))
		}
	})
	var paths []string
	apischema.For[cronv1.CronJobSpec](apischema.Options{Descriptions: func(path, text string) string {
		paths = append(paths, path)
		return text
	}})
	if !slices.Contains(paths, "jobTemplate.spec.template.spec.containers[*].image") {
		t.Errorf("paths given to Descriptions lack the container image: %d paths", len(paths))
	}
	docs, err := cronv1.Docs()
	if err != nil {
		t.Fatal(err)
	}
	cron, _ := apischema.ResourceFor[cronv1.CronJob](apischema.Options{DocComments: docs})
	if cron.Description != "CronJob is the Schema for the cronjobs API" || cron.Properties["spec"].Properties["schedule"].Description != "schedule in Cron format, see https://en.wikipedia.org/wiki/Cron." {
		t.Errorf("doc comment descriptions are missing: %q, %q", cron.Description, cron.Properties["spec"].Properties["schedule"].Description)
	}
}

type recursive struct {
	Next *recursive `json:"next,omitempty"`
}

type marshals struct{}

func (marshals) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type declaredMarshaler struct{}

func (declaredMarshaler) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }
func (declaredMarshaler) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Schema: &apischema.Schema{Type: "integer"}}
}

func TestTypesWithoutASchemaAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    reflect.Type
	}{
		{"channel", reflect.TypeFor[chan int]()},
		{"function", reflect.TypeFor[func()]()},
		{"complex", reflect.TypeFor[complex128]()},
		{"map with int keys", reflect.TypeFor[map[int]string]()},
		{"recursive", reflect.TypeFor[recursive]()},
		{"undeclared json.Marshaler", reflect.TypeFor[marshals]()},
		{"two fields of one JSON name", reflect.StructOf([]reflect.StructField{
			{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
			{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := apischema.Type(tc.t, apischema.Options{})
			var te *apischema.TypeError
			if !errors.As(err, &te) || !errors.Is(err, apischema.ErrUnsupported) {
				t.Fatalf("got %v, want a *TypeError", err)
			}
		})
	}
	s, err := apischema.For[declaredMarshaler](apischema.Options{})
	if err != nil || s.Type != "integer" {
		t.Fatalf("a declared schema: %v %+v", err, s)
	}
	if _, err := apischema.ResourceFor[apischematest.Nested](apischema.Options{}); err == nil {
		t.Fatal("Resource accepted a type without TypeMeta and ObjectMeta")
	}
}

func TestObjectEqualsTheDecodedJSON(t *testing.T) {
	for _, build := range []func() (*apischema.Schema, error){
		func() (*apischema.Schema, error) { return apischema.ResourceFor[cronv1.CronJob](apischema.Options{}) },
		func() (*apischema.Schema, error) {
			return apischema.ResourceFor[apischematest.Sample](apischema.Options{})
		},
	} {
		s, err := build()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(s)
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON([]byte(`{"apiVersion":"v1","kind":"X","schema":` + string(data) + `}`)); err != nil {
			t.Fatal(err)
		}
		if got := s.Object(); !reflect.DeepEqual(got, u.Object["schema"]) {
			t.Fatalf("Object differs from the decoded JSON")
		}
		_ = runtime.DeepCopyJSONValue(s.Object())
	}
}
