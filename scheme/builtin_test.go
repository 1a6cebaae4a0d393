package scheme

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/builtin"
)

// The table of internal/builtin is generated from this package's
// registrations (go generate ./scheme); it must not drift from them.
func TestBuiltinTableMatchesRegistrations(t *testing.T) {
	s := New()
	for gvk, typ := range s.AllKnownTypes() {
		if !strings.HasPrefix(typ.PkgPath(), "k8s.io/api/") {
			continue
		}
		if !slices.Contains(builtin.KindsOf(typ), gvk) {
			t.Errorf("%v (%s.%s) is missing from internal/builtin's table; run go generate ./scheme", gvk, typ.PkgPath(), typ.Name())
		}
		if !builtin.IsGroupVersion(gvk.GroupVersion()) {
			t.Errorf("group/version %v is missing from internal/builtin's table", gvk.GroupVersion())
		}
		for _, k := range builtin.KindsOf(typ) {
			if !s.Recognizes(k) {
				t.Errorf("internal/builtin maps %s.%s to %v, which the scheme does not register", typ.PkgPath(), typ.Name(), k)
			}
		}
	}
	if builtin.IsGroupVersion(schema.GroupVersion{Group: "example.com", Version: "v1"}) {
		t.Error("example.com/v1 is not a built-in group/version")
	}
}
