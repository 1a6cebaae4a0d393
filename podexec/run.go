package podexec

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/kubego/kubego/internal/websocket"
	"github.com/kubego/kubego/rest"
)

// The subprotocols offered, best first.
const (
	protocolV5 = "v5.channel.k8s.io"
	protocolV4 = "v4.channel.k8s.io"
)

// Run executes opts.Command in the container and streams its input and
// output until it exits. It returns nil for exit status zero and an
// *ExitError for another; see the package documentation for the other
// errors. It is safe to call concurrently with one Client.
func Run(ctx context.Context, c *rest.Client, opts Options) error {
	if len(opts.Command) == 0 {
		return fmt.Errorf("%w: Run needs a Command", ErrInvalidOptions)
	}
	return stream(ctx, c, "exec", opts)
}

// Attach connects to the streams of the container's running process (its
// standard input, output and error, or its terminal) until the process
// exits or ctx ends. Results and errors are those of Run.
func Attach(ctx context.Context, c *rest.Client, opts Options) error {
	if len(opts.Command) != 0 {
		return fmt.Errorf("%w: Attach takes no Command", ErrInvalidOptions)
	}
	return stream(ctx, c, "attach", opts)
}

func stream(ctx context.Context, c *rest.Client, subresource string, opts Options) error {
	if opts.Namespace == "" || opts.Pod == "" {
		return fmt.Errorf("%w: Namespace and Pod are required", ErrInvalidOptions)
	}
	stderr := opts.Stderr != nil && !opts.TTY
	if opts.Stdin == nil && opts.Stdout == nil && !stderr {
		return fmt.Errorf("%w: no stream requested (Stdin, Stdout or Stderr)", ErrInvalidOptions)
	}
	req := c.Get().Namespace(opts.Namespace).Resource("pods").Name(opts.Pod).SubResource(subresource)
	if opts.Container != "" {
		req.Param("container", opts.Container)
	}
	for _, arg := range opts.Command {
		req.Param("command", arg)
	}
	flag := func(name string, on bool) {
		if on {
			req.Param(name, "true")
		}
	}
	flag("stdin", opts.Stdin != nil)
	flag("stdout", opts.Stdout != nil)
	flag("stderr", stderr)
	flag("tty", opts.TTY)

	upgrade := func(ctx context.Context, h http.Header) (io.ReadWriteCloser, http.Header, error) {
		for k, v := range h {
			req.SetHeader(k, v...)
		}
		return req.Upgrade(ctx)
	}
	conn, proto, err := websocket.Dial(ctx, upgrade, protocolV5, protocolV4)
	if err != nil {
		return err
	}
	s := &session{conn: conn, protocol: proto, opts: opts, stderr: stderr}
	return s.run(ctx)
}
