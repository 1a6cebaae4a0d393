package main

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The operator's webhooks, called by a real kube-apiserver: a v1 gizmo is
// defaulted (by a webhook written for v2, the request converted), reads as
// v2, and the validator's refusals reach the client unchanged.
func TestIntegrationGizmoWebhooks(t *testing.T) {
	cp := testenv.Shared(t)
	var out bytes.Buffer
	if err := run(t.Context(), &out, slog.New(slog.NewTextHandler(io.Discard, nil)), cp); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"created as v1: size 30, color grey (defaulted)",
		"read as v2: length 30cm, color grey",
		`creating a 9m gizmo: refused: admission webhook "validate.gizmos.example.kubego.dev" denied the request: spec.length 9m exceeds the maximum of 500cm`,
		`repainting a: refused: admission webhook "validate.gizmos.example.kubego.dev" denied the request: spec.color is immutable once set (was grey)`,
		"listed as v1: a size 30",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
