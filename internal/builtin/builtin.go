// Package builtin knows the group, version and kind of every Go type of
// k8s.io/api that is a kind, by the type's import path and name, without
// importing (and so linking and initialising) the packages of k8s.io/api.
// A program that uses three built-in kinds links those three groups only,
// while rest, client, controller and record still recognise every built-in
// type they are given. Package scheme, which registers every group, is the
// source of the generated table (scheme/internal/kindgen) and checks it.
package builtin

import (
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// row is one registered Go type: its import path and name, and one kind
// it is registered as.
type row struct {
	pkg, name            string
	group, version, kind string
}

// KindsOf returns the kinds Go type t (a struct type, or a pointer to one)
// is registered as in k8s.io/api, or nil for any other type. The result is
// fresh for each call.
func KindsOf(t reflect.Type) []schema.GroupVersionKind {
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	pkg, name := t.PkgPath(), t.Name()
	i := sort.Search(len(kinds), func(i int) bool {
		r := &kinds[i]
		return r.pkg > pkg || (r.pkg == pkg && r.name >= name)
	})
	var out []schema.GroupVersionKind
	for ; i < len(kinds) && kinds[i].pkg == pkg && kinds[i].name == name; i++ {
		r := &kinds[i]
		out = append(out, schema.GroupVersionKind{Group: r.group, Version: r.version, Kind: r.kind})
	}
	return out
}

// IsGroupVersion reports whether gv is a group/version of k8s.io/api: its
// kinds are served in protobuf as well as JSON.
func IsGroupVersion(gv schema.GroupVersion) bool {
	for i := range kinds {
		if kinds[i].group == gv.Group && kinds[i].version == gv.Version {
			return true
		}
	}
	return false
}
