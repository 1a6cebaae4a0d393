package celeval_test

import (
	"context"
	"fmt"

	"github.com/kubego/kubego/internal/celeval"
)

func ExampleNew() {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"start": map[string]any{"type": "integer"},
					"end":   map[string]any{"type": "integer"},
				},
				"x-kubernetes-validations": []any{
					map[string]any{"rule": "self.start <= self.end", "message": "start must not be after end"},
				},
			},
		},
	}
	v, err := celeval.New(schema, celeval.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	obj := map[string]any{"spec": map[string]any{"start": int64(5), "end": int64(1)}}
	for _, e := range v.Validate(context.Background(), obj, nil) {
		fmt.Println(e)
	}
	// Output: spec: Invalid value: start must not be after end
}
