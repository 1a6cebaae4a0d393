package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/webhook"
)

var (
	_ manager.Runnable               = (*webhook.Server)(nil)
	_ manager.LeaderElectionRunnable = (*webhook.Server)(nil)
)

// A Server added to a Manager serves while the Manager runs, reports ready
// through the Manager's /readyz, and stops with it.
func TestServerRunsUnderAManager(t *testing.T) {
	api := fake.NewServer(fake.Options{})
	defer api.Close()
	mgr, err := manager.New(manager.Options{Config: api.Config()})
	if err != nil {
		t.Fatal(err)
	}
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{})
	srv.Handle("/ok", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	if err := mgr.Add(srv); err != nil {
		t.Fatal(err)
	}
	mgr.AddReadyzCheck("webhook", srv.ReadyCheck)
	if srv.NeedLeaderElection() {
		t.Error("the webhook server needs leader election; every replica must serve")
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-srv.Serving()
	if code, _ := post(t, client(e), "https://"+srv.Addr().String()+"/ok", ""); code != http.StatusOK {
		t.Fatalf("webhook server answered %d", code)
	}
	rec := httptest.NewRecorder()
	mgr.HealthHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz?verbose", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/readyz: %d %s", rec.Code, rec.Body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("manager Start: %v", err)
	}
	if err := srv.ReadyCheck(nil); err == nil {
		t.Fatal("ready after the manager stopped")
	}
}
