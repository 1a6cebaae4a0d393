package conversion_test

import (
	"context"
	"fmt"

	"github.com/kubego/kubego/webhook/conversion"
)

// Two versions of a kind and a function each way; the Webhook is the
// http.Handler kube-apiserver calls, and Convert is what it does with each
// object.
func Example() {
	wh := conversion.New(conversion.Options{})
	conversion.Register(wh, "example.com/v1", "example.com/v2", v1ToV2)
	conversion.Register(wh, "example.com/v2", "example.com/v1", v2ToV1)

	out, err := wh.Convert(context.Background(), []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":3}}`), "example.com/v2")
	fmt.Println(string(out), err)
	// Output: {"kind":"Widget","apiVersion":"example.com/v2","metadata":{"name":"a"},"spec":{"length":"3cm"}} <nil>
}
