package proxy_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/kubego/kubego/proxy"
	"github.com/kubego/kubego/rest"
)

// Get a Pod's metrics through kube-apiserver, streaming the answer.
func ExampleGet() {
	c, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	body, err := proxy.Get(context.Background(), c, proxy.Pod("default", "web", "9090"), "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer body.Close()
	_, _ = io.Copy(os.Stdout, body)
}
