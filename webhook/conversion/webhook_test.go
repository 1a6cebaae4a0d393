package conversion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/webhook/conversion"
)

// WidgetV1 has a size in centimetres as a number.
type WidgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

// WidgetV2 has the size as a quantity string with its unit.
type WidgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Length string `json:"length,omitempty"`
	} `json:"spec,omitempty"`
}

// WidgetV3 has the length in millimetres.
type WidgetV3 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Millimetres int `json:"mm,omitempty"`
	} `json:"spec,omitempty"`
}

func v1ToV2(_ context.Context, in *WidgetV1, out *WidgetV2) error {
	if in.Spec.Size < 0 {
		return fmt.Errorf("negative size %d", in.Spec.Size)
	}
	out.ObjectMeta = in.ObjectMeta
	out.Spec.Length = fmt.Sprintf("%dcm", in.Spec.Size)
	return nil
}

func v2ToV1(_ context.Context, in *WidgetV2, out *WidgetV1) error {
	out.ObjectMeta = in.ObjectMeta
	_, err := fmt.Sscanf(in.Spec.Length, "%dcm", &out.Spec.Size)
	return err
}

func v3ToV2(_ context.Context, in *WidgetV3, out *WidgetV2) error {
	if in.Spec.Millimetres == 13 {
		panic("unlucky")
	}
	out.ObjectMeta = in.ObjectMeta
	out.Spec.Length = fmt.Sprintf("%dcm", in.Spec.Millimetres/10)
	return nil
}

func v2ToV3(_ context.Context, in *WidgetV2, out *WidgetV3) error {
	out.ObjectMeta = in.ObjectMeta
	var cm int
	_, err := fmt.Sscanf(in.Spec.Length, "%dcm", &cm)
	out.Spec.Millimetres = cm * 10
	return err
}

func newWidgets() *conversion.Webhook {
	wh := conversion.New(conversion.Options{Hub: "example.com/v2", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	conversion.Register(wh, "example.com/v1", "example.com/v2", v1ToV2)
	conversion.Register(wh, "example.com/v2", "example.com/v1", v2ToV1)
	conversion.Register(wh, "example.com/v3", "example.com/v2", v3ToV2)
	conversion.Register(wh, "example.com/v2", "example.com/v3", v2ToV3)
	return wh
}

func obj(apiVersion, name, spec string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"Widget","metadata":{"name":"` + name + `","namespace":"ns","uid":"u-` + name + `"},"spec":` + spec + `}`
}

func review(apiVersion, desired string, objs ...string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"ConversionReview","request":{"uid":"rev-1","desiredAPIVersion":"` + desired + `","objects":[` + strings.Join(objs, ",") + `]}}`
}

func serve(t testing.TB, ctx context.Context, wh http.Handler, body string) (int, *conversion.Review, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodPost, "/convert", strings.NewReader(body)))
	if rec.Code != http.StatusOK {
		return rec.Code, nil, rec.Body.String()
	}
	var rev conversion.Review
	if err := json.Unmarshal(rec.Body.Bytes(), &rev); err != nil || rev.Response == nil {
		t.Fatalf("response is no ConversionReview (%v): %s", err, rec.Body)
	}
	return rec.Code, &rev, rec.Body.String()
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestConversion(t *testing.T) {
	wh := newWidgets()
	for _, tc := range []struct {
		name, review string
		want         []string
	}{
		{"a direct function converts", review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "a", `{"size":3}`)),
			[]string{obj("example.com/v2", "a", `{"length":"3cm"}`)}},
		{"and back", review("apiextensions.k8s.io/v1", "example.com/v1", obj("example.com/v2", "a", `{"length":"3cm"}`)),
			[]string{obj("example.com/v1", "a", `{"size":3}`)}},
		{"through the hub when no direct function exists", review("apiextensions.k8s.io/v1", "example.com/v3", obj("example.com/v1", "a", `{"size":3}`)),
			[]string{obj("example.com/v3", "a", `{"mm":30}`)}},
		{"a list of mixed versions, in order, objects at the desired version untouched",
			review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "a", `{"size":1}`), obj("example.com/v2", "b", `{"length":"2cm","x":1}`), obj("example.com/v3", "c", `{"mm":30}`)),
			[]string{obj("example.com/v2", "a", `{"length":"1cm"}`), obj("example.com/v2", "b", `{"length":"2cm","x":1}`), obj("example.com/v2", "c", `{"length":"3cm"}`)}},
		{"v1beta1 reviews are answered as v1beta1", review("apiextensions.k8s.io/v1beta1", "example.com/v2", obj("example.com/v1", "a", `{"size":3}`)),
			[]string{obj("example.com/v2", "a", `{"length":"3cm"}`)}},
		{"no objects", review("apiextensions.k8s.io/v1", "example.com/v2"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rev, body := serve(t, t.Context(), wh, tc.review)
			var in conversion.Review
			json.Unmarshal([]byte(tc.review), &in)
			if rev.APIVersion != in.APIVersion || rev.Kind != "ConversionReview" || rev.Response.UID != "rev-1" {
				t.Fatalf("review %s %s uid %s, want %s ConversionReview rev-1", rev.APIVersion, rev.Kind, rev.Response.UID, in.APIVersion)
			}
			if rev.Response.Result.Status != metav1.StatusSuccess {
				t.Fatalf("result %+v: %s", rev.Response.Result, body)
			}
			if len(rev.Response.ConvertedObjects) != len(tc.want) {
				t.Fatalf("%d objects, want %d", len(rev.Response.ConvertedObjects), len(tc.want))
			}
			for i, want := range tc.want {
				if got := compact(t, string(rev.Response.ConvertedObjects[i])); got != compact(t, want) {
					t.Errorf("object %d: %s, want %s", i, got, want)
				}
			}
		})
	}
}

func TestConversionFailuresFailTheWholeReview(t *testing.T) {
	wh := newWidgets()
	for _, tc := range []struct {
		name, review string
		code         int32
		contains     string
	}{
		{"the function's error names the object", review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "ok", `{"size":1}`), obj("example.com/v1", "bad", `{"size":-1}`)),
			500, "converting object 1 (ns/bad example.com/v1) to example.com/v2: negative size -1"},
		{"no function", review("apiextensions.k8s.io/v1", "example.com/v9", obj("example.com/v1", "a", `{}`)),
			500, "no conversion function from example.com/v1 to example.com/v9"},
		{"an undecodable object", review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "a", `{"size":"x"}`)),
			500, "decoding *conversion_test.WidgetV1"},
		{"a panic", review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v3", "a", `{"mm":13}`)),
			500, "panicked: unlucky"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rev, _ := serve(t, t.Context(), wh, tc.review)
			r := rev.Response
			if r.UID != "rev-1" || r.Result.Status != metav1.StatusFailure || r.Result.Code != tc.code || !strings.Contains(r.Result.Message, tc.contains) || len(r.ConvertedObjects) != 0 {
				t.Fatalf("response %+v, want a failure %d containing %q and no objects", r, tc.code, tc.contains)
			}
		})
	}
}

func TestSlowConversionFailsWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		wh := conversion.New(conversion.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		wh.RegisterFunc("example.com/v1", "example.com/v2", func(context.Context, []byte, string) ([]byte, error) {
			<-release
			return nil, errors.New("too late")
		})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, rev, _ := serve(t, ctx, wh, review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "a", `{}`)))
		if r := rev.Response; r.Result.Status != metav1.StatusFailure || r.Result.Code != 504 {
			t.Fatalf("response %+v, want a 504 failure", r)
		}
		close(release)
	})
}

func TestUnreadableReviewsGetAnHTTPError(t *testing.T) {
	wh := newWidgets()
	for _, tc := range []struct{ name, body, contains string }{
		{"malformed", `{"apiVersion":`, "decoding ConversionReview"},
		{"another version", `{"apiVersion":"apiextensions.k8s.io/v2","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"x/v1"}}`, "unsupported ConversionReview version"},
		{"no request", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, "has no request"},
		{"no desired version", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u"}}`, "desiredAPIVersion is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := serve(t, t.Context(), wh, tc.body)
			if code != http.StatusBadRequest || !strings.Contains(body, tc.contains) {
				t.Fatalf("got %d %s, want 400 containing %q", code, body, tc.contains)
			}
		})
	}
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/convert", http.MaxBytesReader(rec, io.NopCloser(bytes.NewReader(make([]byte, 100))), 10)))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body answered %d, want 413", rec.Code)
	}
}

// Whatever the body, the Webhook answers without panicking: an HTTP error
// for an unreadable review, else a review with the request's uid and
// either every object converted or none.
func FuzzConversionReview(f *testing.F) {
	f.Add(review("apiextensions.k8s.io/v1", "example.com/v2", obj("example.com/v1", "a", `{"size":3}`)))
	f.Add(review("apiextensions.k8s.io/v1", "example.com/v3", obj("example.com/v1", "a", `{"size":3}`), `{"apiVersion":7}`))
	f.Add(review("apiextensions.k8s.io/v1beta1", "example.com/v1", `null`, `[]`))
	f.Add(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":{}}}`)
	wh := newWidgets()
	f.Fuzz(func(t *testing.T, body string) {
		rev, err := conversion.DecodeReview([]byte(body))
		code, out, _ := serve(t, context.Background(), wh, body)
		if err != nil {
			if code == http.StatusOK {
				t.Fatalf("unreadable review (%v) answered 200", err)
			}
			return
		}
		r := out.Response
		if r.UID != rev.Request.UID {
			t.Fatalf("uid %q, want %q", r.UID, rev.Request.UID)
		}
		if r.Result.Status == metav1.StatusSuccess && len(r.ConvertedObjects) != len(rev.Request.Objects) {
			t.Fatalf("%d objects converted of %d", len(r.ConvertedObjects), len(rev.Request.Objects))
		}
		if r.Result.Status != metav1.StatusSuccess && len(r.ConvertedObjects) != 0 {
			t.Fatal("a failed review carries objects")
		}
	})
}
