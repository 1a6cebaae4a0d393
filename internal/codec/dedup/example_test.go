package dedup_test

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/dedup"
)

// Two decoded objects with equal labels end up holding one map: values are
// shared from their second sighting on.
func ExampleTable_Object() {
	tab := dedup.New(dedup.Options{})
	decoded := func(name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"app": strings.Clone("web")},
		}}
	}
	a, b, c := decoded("a"), decoded("b"), decoded("c")
	for _, o := range []*metav1.PartialObjectMetadata{a, b, c} {
		tab.Object(o)
	}
	b.Labels["probe"] = "x" // only to show identity; cached objects are read-only
	fmt.Println(c.Labels["probe"], a.Labels["probe"] == "")
	// Output: x true
}
