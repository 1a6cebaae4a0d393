package apischema_test

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apischema"
)

type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BackupSpec `json:"spec"`
}

type BackupSpec struct {
	Schedule string   `json:"schedule" kube:"minLength=1"`
	Keep     *int32   `json:"keep,omitempty" kube:"minimum=1;maximum=30;default=7"`
	Targets  []string `json:"targets,omitempty" kube:"listType=set;maxItems=4"`
}

func ExampleResourceFor() {
	sch, err := apischema.ResourceFor[Backup](apischema.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.MarshalIndent(sch.Properties["spec"], "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "type": "object",
	//   "required": [
	//     "schedule"
	//   ],
	//   "properties": {
	//     "keep": {
	//       "type": "integer",
	//       "format": "int32",
	//       "default": 7,
	//       "maximum": 30,
	//       "minimum": 1
	//     },
	//     "schedule": {
	//       "type": "string",
	//       "minLength": 1
	//     },
	//     "targets": {
	//       "type": "array",
	//       "maxItems": 4,
	//       "items": {
	//         "type": "string"
	//       },
	//       "x-kubernetes-list-type": "set"
	//     }
	//   }
	// }
}

type typo struct {
	Name string `json:"name" kube:"patern=^[a-z]+$"`
}

func ExampleType_typo() {
	_, err := apischema.For[typo](apischema.Options{})
	fmt.Println(err != nil)
	// Output: true
}
