package portforward_test

import (
	"context"
	"fmt"
	"io"

	"github.com/kubego/kubego/portforward"
	"github.com/kubego/kubego/rest"
)

// Dial gives a net.Conn to a port of a Pod; Start forwards local ports.
func ExampleDial() {
	c, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	conn, err := portforward.Dial(ctx, c, portforward.Target{Namespace: "default", Pod: "redis-0"}, 6379)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "PING\r\n")
}

func ExampleStart() {
	c, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	f, err := portforward.Start(context.Background(), c, portforward.Options{
		Target: portforward.Target{Namespace: "default", Pod: "web"},
		Ports:  []portforward.Port{{Local: 8080, Remote: 80}, {Remote: 9090}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println("metrics on 127.0.0.1 port", f.Local(9090))
}
