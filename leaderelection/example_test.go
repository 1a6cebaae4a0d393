package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rest"
)

func Example() {
	ctx := context.Background()
	rc, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		fmt.Println(err)
		return
	}
	hostname, _ := os.Hostname()
	e, err := leaderelection.New(leaderelection.NewStore(client.New(rc, client.Options{})), leaderelection.Config{
		Lock:     types.NamespacedName{Namespace: "kube-system", Name: "my-controller"},
		Identity: hostname + "-" + fmt.Sprint(os.Getpid()),
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				// Run the controllers until ctx is cancelled: the term is over.
				<-ctx.Done()
			},
			OnNewLeader: func(identity string) { fmt.Println("leader:", identity) },
		},
		ReleaseOnCancel: true,
		Logger:          slog.Default(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := e.Run(ctx); errors.Is(err, leaderelection.ErrLeaseLost) {
		// The term ended without ctx being cancelled: exit and let the
		// process restart as a fresh candidate.
		os.Exit(1)
	}
}
