// Package scheme holds the type registry (a runtime.Scheme) of every built-in
// Kubernetes kind in k8s.io/api, and the serializers built on it.
//
// The registry is built once and is read-only afterwards: callers that need to
// register more types (a CRD's Go type) call New and add to their own copy.
package scheme

//go:generate go run ../internal/gen/schemegen
//go:generate go run ./internal/kindgen

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// New returns a fresh scheme with every built-in group/version of k8s.io/api
// and the meta/v1 types (Status, ListOptions, …) registered. The caller owns
// it and may add more types.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range builtinAdders {
		if err := add(s); err != nil {
			// Registration of the vendored k8s.io/api types cannot fail at
			// runtime unless the module itself is broken; surface it loudly
			// in tests (TestBuiltinRegistration) rather than here.
			continue
		}
	}
	// Unversioned meta types (ListOptions, Status, WatchEvent …) used as
	// query parameters and error bodies.
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}

var shared = sync.OnceValues(func() (*runtime.Scheme, serializer.CodecFactory) {
	s := New()
	return s, serializer.NewCodecFactory(s)
})

// Default returns the process-wide scheme of built-in kinds. It is shared and
// must not be modified; use New for a scheme you can extend.
func Default() *runtime.Scheme {
	s, _ := shared()
	return s
}

// Codecs returns the codec factory (JSON, YAML, protobuf) of Default.
func Codecs() serializer.CodecFactory {
	_, c := shared()
	return c
}

// ParameterCodec returns the codec that turns option structs such as
// metav1.ListOptions into query parameters, for the Default scheme.
func ParameterCodec() runtime.ParameterCodec {
	return runtime.NewParameterCodec(Default())
}
