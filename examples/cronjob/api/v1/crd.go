package v1

import (
	"reflect"

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

// CRD returns the CronJob CustomResourceDefinition with the schema options
// given (apischema.NoDescriptions keeps it small enough for any apply
// path).
func CRD(opts apischema.Options) (*unstructured.Unstructured, error) {
	d := Definition()
	d.Schema = opts
	return crd.Build(d)
}
