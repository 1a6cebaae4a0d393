package gizmo

import (
	"context"
	"testing"
)

func TestConversionRoundTrips(t *testing.T) {
	for _, size := range []int{0, 1, 30, 500} {
		in := &GizmoV1{Spec: SpecV1{Size: size, Color: "red"}}
		in.Name = "g"
		var v2 Gizmo
		if err := ToV2(context.Background(), in, &v2); err != nil {
			t.Fatal(err)
		}
		var back GizmoV1
		if err := ToV1(context.Background(), &v2, &back); err != nil {
			t.Fatal(err)
		}
		if back.Spec != in.Spec || back.Name != "g" {
			t.Errorf("size %d: round trip gave %+v via %+v", size, back.Spec, v2.Spec)
		}
	}
	var v1 GizmoV1
	if err := ToV1(context.Background(), &Gizmo{Spec: Spec{Length: "2m"}}, &v1); err != nil || v1.Spec.Size != 200 {
		t.Errorf("2m as v1: size %d, %v; want 200", v1.Spec.Size, err)
	}
	if err := ToV1(context.Background(), &Gizmo{Spec: Spec{Length: "2 ft"}}, &v1); err == nil {
		t.Error("2 ft converted")
	}
}

func TestValidator(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		old, obj Spec
		update   bool
		wantErr  string
		warnings int
	}{
		{name: "within bounds", obj: Spec{Length: "5m"}},
		{name: "too long", obj: Spec{Length: "6m"}, wantErr: "spec.length 6m exceeds the maximum of 500cm"},
		{name: "not a length", obj: Spec{Length: "far"}, wantErr: `spec.length: "far" is not a length in cm or m`},
		{name: "empty warns", obj: Spec{}, warnings: 1},
		{name: "color kept", update: true, old: Spec{Color: "grey", Length: "1m"}, obj: Spec{Color: "grey", Length: "2m"}},
		{name: "color changed", update: true, old: Spec{Color: "grey"}, obj: Spec{Color: "pink"}, wantErr: "spec.color is immutable once set (was grey)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				warn []string
				err  error
			)
			if tc.update {
				warn, err = Validator{}.ValidateUpdate(ctx, &Gizmo{Spec: tc.old}, &Gizmo{Spec: tc.obj})
			} else {
				warn, err = Validator{}.ValidateCreate(ctx, &Gizmo{Spec: tc.obj})
			}
			if got := errText(err); got != tc.wantErr {
				t.Errorf("err %q, want %q", got, tc.wantErr)
			}
			if len(warn) != tc.warnings {
				t.Errorf("warnings %q, want %d", warn, tc.warnings)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
