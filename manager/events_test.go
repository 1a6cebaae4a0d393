package manager_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/record"
)

// Events recorded by a reconcile that is still running when the Manager
// stops are written before Start returns: recorders are flushed after the
// controllers drain.
func TestEventRecorderFlushedWhenTheManagerStops(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "settings"}}
	srv := fake.NewServer(fake.Options{}, cm)
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config(), GracefulShutdownTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := mgr.EventRecorder("example.com/settings")
	if err != nil {
		t.Fatal(err)
	}
	again, err := mgr.EventRecorder("example.com/settings")
	if err != nil || again != rec {
		t.Fatalf("second EventRecorder = %p, %v; want the first recorder %p", again, err, rec)
	}
	reconciling := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	_, err = mgr.NewController(controller.Options{
		Name: "settings",
		Reconciler: controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			once.Do(func() { close(reconciling) })
			<-release // still reconciling when the Manager stops
			rec.Eventf(cm, nil, record.Normal, "Synced", "Reconcile", "settings %s synced", req.Name)
			return controller.Result{}, nil
		}),
		Sources: []controller.Source{controller.For[*corev1.ConfigMap]{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-reconciling
	cancel()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	// Start has returned: the Event must be stored already.
	evs, err := client.Typed[*eventsv1.Event](mgr.Client()).Namespace("app").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) != 1 || evs.Items[0].Reason != "Synced" || evs.Items[0].ReportingController != "example.com/settings" || evs.Items[0].Regarding.Name != "settings" {
		t.Fatalf("events after Start returned: %+v, want one Synced event about settings", evs.Items)
	}
	if st := rec.Stats(); st.Writes != 1 {
		t.Errorf("recorder stats %+v, want one write", st)
	}

	// A recorder asked for after the stop exists but drops.
	late, err := mgr.EventRecorder("example.com/late")
	if err != nil {
		t.Fatal(err)
	}
	late.Eventf(cm, nil, record.Normal, "Late", "Reconcile", "too late")
	if st := late.Stats(); st.DroppedShutdown != 1 {
		t.Errorf("late recorder stats %+v, want one drop after shutdown", st)
	}
}

func TestEventRecorderRefusesAnInvalidName(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "Not A Name!"} {
		if _, err := mgr.EventRecorder(name); !errors.Is(err, record.ErrInvalidOptions) && !errors.Is(err, manager.ErrInvalidOptions) {
			t.Errorf("EventRecorder(%q) = %v, want an invalid-options error", name, err)
		}
	}
}

// Every write of the Manager's client names Options.Client.FieldManager;
// without one, the server names it after the program (the default
// User-Agent's first part), never "kubego" or a fragment of the agent.
func TestManagerClientFieldManager(t *testing.T) {
	tests := []struct {
		name, fieldManager, want string
	}{
		{"the configured field manager names every write", "settings-operator", "settings-operator"},
		{"without one the server names the program", "", "manager.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}})
			defer srv.Close()
			mgr, err := manager.New(manager.Options{Config: srv.Config(), Client: client.Options{FieldManager: tt.fieldManager}})
			if err != nil {
				t.Fatal(err)
			}
			cms := client.Typed[*corev1.ConfigMap](mgr.Client()).Namespace("app")
			ctx := t.Context()
			created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			created.Data["k"] = "w"
			updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			applied, err := cms.Apply(ctx, map[string]any{"metadata": map[string]any{"name": "a"}, "data": map[string]any{"applied": "yes"}}, client.ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for what, obj := range map[string]*corev1.ConfigMap{"create": created, "update": updated, "apply": applied} {
				for _, mf := range obj.ManagedFields {
					if mf.Manager != tt.want {
						t.Errorf("after %s: managedFields name manager %q, want %q", what, mf.Manager, tt.want)
					}
				}
				if len(obj.ManagedFields) == 0 {
					t.Errorf("after %s: no managedFields", what)
				}
			}
		})
	}
}
