package controller

import (
	"errors"
	"reflect"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// Foo is a custom resource Go type that no scheme knows.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (f *Foo) DeepCopyObject() runtime.Object {
	out := *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// Bar is a custom resource Go type nothing maps.
type Bar struct{ Foo }

func (b *Bar) DeepCopyObject() runtime.Object { out := *b; return &out }

// errUnknown stands for the client's *UnknownTypeError.
var errUnknown = errors.New("no resource known")

// kindTable is a KindResolver as a client with a registry is.
type kindTable map[reflect.Type]schema.GroupVersionKind

func (k kindTable) KindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	if gvk, ok := k[reflect.TypeOf(obj)]; ok {
		return gvk, nil
	}
	return schema.GroupVersionKind{}, errUnknown
}

var fooKinds = kindTable{
	reflect.TypeFor[*Foo]():               {Group: "example.com", Version: "v1", Kind: "Foo"},
	reflect.TypeFor[*appsv1.Deployment](): appsv1.SchemeGroupVersion.WithKind("Deployment"),
}

func TestOwnsFindsACustomOwnerKindThroughKinds(t *testing.T) {
	isController := true
	owned := func(name, apiVersion, kind, owner string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: apiVersion, Kind: kind, Name: owner, UID: "u", Controller: &isController},
		}}}
	}
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(
			owned("web", "example.com/v1", "Foo", "f1"),
			owned("other-group", "example.org/v1", "Foo", "f2"),
		)
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Kinds: fooKinds, Sources: []Source{
			For[*Foo]{},
			Owns[*appsv1.Deployment]{},
		}})
		synctest.Wait()
		f1 := Request{Key: informer.Key{Namespace: "ns", Name: "f1"}}
		if len(rec.times(f1)) != 1 || rec.total() != 1 {
			t.Fatalf("reconciles %v; want only %v once", rec.calls, f1)
		}
		h.stop(t)
	})
}

func TestNewRefusesATypeKindsCannotMap(t *testing.T) {
	tests := []struct {
		name    string
		sources []Source
		wantErr bool
	}{
		{"a mapped For type is accepted", []Source{For[*Foo]{}}, false},
		{"an unmapped For type fails New", []Source{For[*Bar]{}}, true},
		{"an unmapped Watches type fails New", []Source{For[*Foo]{}, Watches[*Bar]{Map: nil}}, true},
		{"metadata sources are not checked", []Source{ForMetadata{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "bars"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
			_, err := New(f, Options{Reconciler: &recorder{}, Kinds: fooKinds, Sources: tt.sources})
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("New = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnknownKind) || !errors.Is(err, errUnknown) {
				t.Fatalf("New = %v, want ErrUnknownKind wrapping the resolver's error", err)
			}
		})
	}
}

// resourceTable is a ResourceKindResolver as a client with a registry is.
type resourceTable struct {
	kindTable
	resources map[schema.GroupVersionResource]schema.GroupVersionKind
}

func (r resourceTable) KindForResource(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	if gvk, ok := r.resources[gvr]; ok {
		return gvk, nil
	}
	return schema.GroupVersionKind{}, errUnknown
}

func TestOwnsOfAMetadataForSourceFindsTheOwnerKindFromItsResource(t *testing.T) {
	foos := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "foos"}
	bars := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "bars"}
	resources := resourceTable{kindTable: fooKinds, resources: map[schema.GroupVersionResource]schema.GroupVersionKind{
		foos: {Group: "example.com", Version: "v1", Kind: "Foo"},
	}}
	tests := []struct {
		name      string
		kinds     client.KindResolver
		forGVR    schema.GroupVersionResource
		ownerKind schema.GroupKind
		want      schema.GroupKind
		wantErr   error
	}{
		{name: "a resolver that maps resources gives the kind", kinds: resources, forGVR: foos,
			want: schema.GroupKind{Group: "example.com", Kind: "Foo"}},
		{name: "an explicit OwnerKind wins", kinds: resources, forGVR: foos, ownerKind: schema.GroupKind{Group: "example.org", Kind: "Other"},
			want: schema.GroupKind{Group: "example.org", Kind: "Other"}},
		{name: "an unmapped resource fails New with the resolver's error", kinds: resources, forGVR: bars, wantErr: errUnknown},
		{name: "a resolver that cannot map resources fails New", kinds: fooKinds, forGVR: foos, wantErr: ErrUnknownKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
			ctl, err := New(f, Options{Reconciler: &recorder{}, Kinds: tt.kinds, Sources: []Source{
				ForMetadata{Resource: tt.forGVR}, Owns[*appsv1.Deployment]{OwnerKind: tt.ownerKind},
			}})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, ErrUnknownKind) {
					t.Fatalf("New = %v, want ErrUnknownKind wrapping %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New = %v", err)
			}
			if got := ctl.templates[1].(*kindSource[*appsv1.Deployment]).owner; got != tt.want {
				t.Fatalf("owner kind = %v, want %v", got, tt.want)
			}
		})
	}
}
