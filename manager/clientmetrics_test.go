package manager

import (
	"errors"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

type stubRT struct {
	code int
	err  error
}

func (s stubRT) RoundTrip(*http.Request) (*http.Response, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &http.Response{StatusCode: s.code, Body: http.NoBody}, nil
}

func TestClientMetricsCountRequestsByMethodAndCode(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		rt         stubRT
		wantMethod string
		wantCode   string
	}{
		{"a success", http.MethodGet, stubRT{code: 200}, "GET", "200"},
		{"a server error status", http.MethodPatch, stubRT{code: 404}, "PATCH", "404"},
		{"no response", http.MethodPut, stubRT{err: errors.New("refused")}, "PUT", "<error>"},
		{"an unusual method", "PROPFIND", stubRT{code: 200}, "other", "200"},
		{"an out-of-range code", http.MethodGet, stubRT{code: 700}, "GET", "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newClientMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			rt := m.wrap(tt.rt)
			for range 3 {
				req, _ := http.NewRequest(tt.method, "https://example.invalid/api", nil)
				resp, _ := rt.RoundTrip(req)
				if resp != nil {
					resp.Body.Close()
				}
			}
			if got := value(m.requests.WithLabelValues(tt.wantMethod, tt.wantCode)); got != 3 {
				t.Errorf("requests{method=%q,code=%q} = %v, want 3", tt.wantMethod, tt.wantCode, got)
			}
			if n := prometheusCount(t, reg, "rest_client_requests_total"); n != 1 {
				t.Errorf("%d request series, want 1", n)
			}
		})
	}
}

// value returns the value of a counter, or -1.
func value(c prometheus.Counter) float64 {
	var d dto.Metric
	if err := c.Write(&d); err != nil || d.Counter == nil {
		return -1
	}
	return d.Counter.GetValue()
}

// prometheusCount returns how many series the metric family name has.
func prometheusCount(t *testing.T, g prometheus.Gatherer, name string) int {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}

func BenchmarkInstrumentedRoundTrip(b *testing.B) {
	m, err := newClientMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	rt := m.wrap(stubRT{code: 200})
	req, _ := http.NewRequest(http.MethodPatch, "https://example.invalid/api", nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = rt.RoundTrip(req)
	}
}
