package rest

import (
	"math/rand"
	"net/url"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/scheme"
)

var testParamCodec = runtime.NewParameterCodec(scheme.Default())

// codecParams is what apimachinery's parameter codec makes of opts.
func codecParams(t testing.TB, opts runtime.Object) url.Values {
	t.Helper()
	vals, err := testParamCodec.EncodeParameters(opts, metaV1)
	if err != nil {
		t.Fatal(err)
	}
	return vals
}

func TestPlannedParamsMatchTheParameterCodec(t *testing.T) {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(7), scheme.Codecs()).NilChance(0.3).NumElements(0, 3)
	types := []func() runtime.Object{
		func() runtime.Object { return &metav1.ListOptions{} },
		func() runtime.Object { return &metav1.GetOptions{} },
		func() runtime.Object { return &metav1.CreateOptions{} },
		func() runtime.Object { return &metav1.UpdateOptions{} },
		func() runtime.Object { return &metav1.PatchOptions{} },
		func() runtime.Object { return &metav1.DeleteOptions{} },
	}
	for _, newOpts := range types {
		name := reflect.TypeOf(newOpts()).Elem().Name()
		t.Run(name, func(t *testing.T) {
			if _, ok := fastParams(newOpts()); !ok {
				t.Fatalf("%s is not planned", name)
			}
			for range 300 {
				opts := newOpts()
				f.Fill(opts)
				got, _ := fastParams(opts)
				if want := codecParams(t, opts); !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v:\nplanned %v\ncodec   %v", opts, got, want)
				}
			}
		})
	}
}

func TestPlannedParams(t *testing.T) {
	yes, no := true, false
	grace := int64(0)
	uid := types.UID("u")
	tests := []struct {
		name string
		opts runtime.Object
		want url.Values
	}{
		{"zero options add nothing", &metav1.PatchOptions{}, url.Values{}},
		{"a set pointer is sent even when false", &metav1.PatchOptions{FieldManager: "m", Force: &no}, url.Values{"fieldManager": {"m"}, "force": {"false"}}},
		{"lists repeat their parameter", &metav1.CreateOptions{DryRun: []string{"All", "x"}}, url.Values{"dryRun": {"All", "x"}}},
		{"nested structs are flattened", &metav1.DeleteOptions{GracePeriodSeconds: &grace, Preconditions: &metav1.Preconditions{UID: &uid}}, url.Values{"gracePeriodSeconds": {"0"}, "uid": {"u"}}},
		{"watch options", &metav1.ListOptions{Watch: true, SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 500}, url.Values{"watch": {"true"}, "sendInitialEvents": {"true"}, "resourceVersionMatch": {"NotOlderThan"}, "limit": {"500"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fastParams(tt.opts)
			if !ok {
				t.Fatal("not planned")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if want := codecParams(t, tt.opts); !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, codec %v", got, want)
			}
		})
	}
}

func TestUnplannedOptionsGoThroughTheCodec(t *testing.T) {
	tests := []struct {
		name string
		opts any
	}{
		{"another type", &metav1.TableOptions{}},
		{"a nil pointer of a planned type", (*metav1.ListOptions)(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := fastParams(tt.opts); ok {
				t.Error("planned")
			}
		})
	}
}

func BenchmarkParams(b *testing.B) {
	opts := &metav1.PatchOptions{FieldManager: "labeler"}
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			codecParams(b, opts)
		}
	})
	b.Run("planned", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fastParams(opts)
		}
	})
}
