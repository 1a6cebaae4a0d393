package controller_test

import (
	"fmt"
	"log/slog"

	"github.com/kubego/kubego/client"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/manager"
)

// The controller in a Manager whose client knows the CronJob type; a
// program then runs mgr.Start(ctx) (see main.go).
func Example() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	reg := client.NewRegistry()
	v1.Register(reg)
	mgr, err := manager.New(manager.Options{Config: srv.Config(), Client: client.Options{Registry: reg}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	ctrl, err := controller.Setup(mgr, controller.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(ctrl.Name())
	// Output: cronjob
}
