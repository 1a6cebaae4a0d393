package promleader

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/types"
)

func TestGaugeFollowsLeadership(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(Options{Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	lease := types.NamespacedName{Namespace: "ns", Name: "lock"}
	m.SetLeading(lease, true)
	if v := value(m.status.WithLabelValues("lock")); v != 1 {
		t.Fatalf("gauge %v while leading, want 1", v)
	}
	m.SetLeading(lease, false)
	if v := value(m.status.WithLabelValues("lock")); v != 0 {
		t.Fatalf("gauge %v after leading, want 0", v)
	}
	if _, err := New(Options{Registerer: reg}); err == nil {
		t.Fatal("second registration on one registry succeeded")
	}
}

func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		return -1
	}
	if d.Gauge != nil {
		return d.Gauge.GetValue()
	}
	return d.Counter.GetValue()
}
