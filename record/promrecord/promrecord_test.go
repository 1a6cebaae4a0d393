package promrecord

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kubego/kubego/record"
)

func TestCounters(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(Options{Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	m.Dropped(record.DropSpam)
	m.Dropped(record.DropSpam)
	m.Dropped(record.DropBufferFull)
	m.Wrote(nil)
	m.Wrote(errors.New("boom"))
	for _, tt := range []struct {
		c    prometheus.Metric
		want float64
	}{
		{m.dropped.WithLabelValues("spam"), 2},
		{m.dropped.WithLabelValues("buffer_full"), 1},
		{m.writes.WithLabelValues("success"), 1},
		{m.writes.WithLabelValues("error"), 1},
	} {
		if got := value(tt.c); got != tt.want {
			t.Errorf("got %v, want %v", got, tt.want)
		}
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
