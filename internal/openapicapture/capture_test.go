package openapicapture_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/kubego/kubego/internal/openapicapture"
)

func TestEntriesAreReadByName(t *testing.T) {
	keys := openapicapture.V3Keys()
	if !slices.Contains(keys, "api/v1") || !slices.Contains(keys, "apis/batch/v1") || !slices.IsSorted(keys) {
		t.Fatalf("keys %v", keys)
	}
	data, ok := openapicapture.Entry("v3/api/v1.json")
	if !ok || !json.Valid(data) {
		t.Fatalf("v3/api/v1.json: ok %v, %d bytes", ok, len(data))
	}
	if _, ok := openapicapture.Entry("no/such.json"); ok {
		t.Fatal("an unknown entry was found")
	}
}
