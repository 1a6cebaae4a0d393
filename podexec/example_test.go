package podexec_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kubego/kubego/podexec"
	"github.com/kubego/kubego/rest"
)

// Run a command in a container: its output goes to the writers given, a
// non-zero exit comes back as an *ExitError.
func ExampleRun() {
	c, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:6443"})
	if err != nil {
		panic(err)
	}
	var out strings.Builder
	err = podexec.Run(context.Background(), c, podexec.Options{
		Namespace: "default",
		Pod:       "web",
		Command:   []string{"sh", "-c", "cat; exit 3"},
		Stdin:     strings.NewReader("input, then its end\n"),
		Stdout:    &out,
		Stderr:    os.Stderr,
	})
	var exit *podexec.ExitError
	switch {
	case errors.As(err, &exit):
		fmt.Println("exit code", exit.Code)
	case err != nil:
		fmt.Println("the stream failed:", err)
	}
}
