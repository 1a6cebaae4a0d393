package webhook_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/webhook"
)

func TestHandlersAreMeasuredByPath(t *testing.T) {
	e := newTLSEnv(t)
	reg := prometheus.NewPedanticRegistry()
	srv := newServer(t, e, webhook.Options{Registerer: reg})
	srv.Handle("/validate", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	srv.Handle("/broken", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusInternalServerError) }))
	url := serve(t, srv)
	c := client(e)
	for range 3 {
		post(t, c, url+"/validate", "{}")
	}
	post(t, c, url+"/broken", "{}")

	want := map[[2]string]float64{{"/validate", "200"}: 3, {"/broken", "500"}: 1}
	for k, n := range want {
		got := counter(t, reg, k[0], k[1])
		if got != n {
			t.Errorf("requests_total{webhook=%q,code=%q} = %v, want %v", k[0], k[1], got, n)
		}
	}
	if n := series(t, reg, "controller_runtime_webhook_latency_seconds"); n != 2 {
		t.Errorf("latency series: %d; want one per webhook", n)
	}
	if _, err := webhook.New(webhook.Options{Registerer: reg, CertFile: e.files.CertFile, KeyFile: e.files.KeyFile}); !errors.Is(err, webhook.ErrInvalidOptions) {
		t.Errorf("a second Server on one Registerer: %v, want ErrInvalidOptions", err)
	}
}

// counter is the value of the requests_total series of a webhook and code.
func counter(t *testing.T, reg *prometheus.Registry, path, code string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_webhook_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["webhook"] == path && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// series counts the series of the named metric.
func series(t *testing.T, reg *prometheus.Registry, name string) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return len(mf.GetMetric())
		}
	}
	return 0
}
