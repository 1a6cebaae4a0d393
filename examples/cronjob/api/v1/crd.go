package v1

import (
	"embed"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/crd"
)

// Definition is the CronJob CustomResourceDefinition, built from the Go
// types of this package (crd.Build).
func Definition() crd.Definition {
	return crd.Definition{
		Group: GroupVersion.Group,
		Kind:  "CronJob",
		Versions: []crd.Version{{
			Name: GroupVersion.Version, Type: reflect.TypeFor[CronJob](), Storage: true, Status: true,
			PrinterColumns: []crd.PrinterColumn{
				{Name: "Schedule", Type: "string", JSONPath: ".spec.schedule"},
				{Name: "Suspend", Type: "boolean", JSONPath: ".spec.suspend"},
				{Name: "Last Schedule", Type: "date", JSONPath: ".status.lastScheduleTime"},
			},
		}},
	}
}

// source is this package's Go source: the doc comments of its types and
// fields describe the schema.
//
//go:embed types.go
var source embed.FS

// Docs returns the doc comments of this package's types, read from the
// embedded source, for apischema.Options.DocComments.
var Docs = sync.OnceValues(func() (*apischema.DocComments, error) {
	return apischema.ReadDocComments(source)
})

// CRD returns the CronJob CustomResourceDefinition with the schema options
// given, described by the types' doc comments unless opts names its own
// (apischema.NoDescriptions keeps it small enough for any apply path).
func CRD(opts apischema.Options) (*unstructured.Unstructured, error) {
	if opts.DocComments == nil {
		docs, err := Docs()
		if err != nil {
			return nil, err
		}
		opts.DocComments = docs
	}
	d := Definition()
	d.Schema = opts
	return crd.Build(d)
}
