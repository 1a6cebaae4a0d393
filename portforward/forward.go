package portforward

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/rest"
)

// Port is one forwarded port: connections to Local on the local address
// reach Remote in the Pod.
type Port struct {
	// Local is the local port; zero picks a free one (see Forward.Local).
	Local uint16
	// Remote is the port in the Pod; required.
	Remote uint16
}

// Options configure Start.
type Options struct {
	// Target is the Pod; required.
	Target Target
	// Ports are the ports to forward; at least one.
	Ports []Port
	// Address is the local address to listen on; empty means 127.0.0.1.
	Address string
	// Logger receives a warning for each connection that could not be
	// forwarded. Nil means the kubego default: warnings to
	// slog.Default().
	Logger *slog.Logger
}

// Forward listens on local ports and forwards each connection to the Pod.
// Its methods are safe for concurrent use.
type Forward struct {
	c      *rest.Client
	opts   Options
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	lns    []net.Listener
	local  map[uint16]uint16 // remote → local

	mu    sync.Mutex
	conns map[io.Closer]struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

// Start listens on every port of opts and forwards connections until ctx
// ends or Close is called. A port that cannot be listened on fails Start
// (nothing is left listening). Each accepted connection gets a WebSocket of
// its own; one that cannot be opened (a 403, a Pod gone) is logged and the
// local connection closed.
func Start(ctx context.Context, c *rest.Client, opts Options) (*Forward, error) {
	if opts.Target.Namespace == "" || opts.Target.Pod == "" {
		return nil, fmt.Errorf("%w: Target needs Namespace and Pod", ErrInvalidOptions)
	}
	if len(opts.Ports) == 0 {
		return nil, fmt.Errorf("%w: no Ports", ErrInvalidOptions)
	}
	addr := opts.Address
	if addr == "" {
		addr = "127.0.0.1"
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Forward{
		c: c, opts: opts, log: defaultlog.Or(opts.Logger), ctx: ctx, cancel: cancel,
		local: map[uint16]uint16{}, conns: map[io.Closer]struct{}{},
	}
	var lc net.ListenConfig
	for _, p := range opts.Ports {
		if p.Remote == 0 {
			f.closeListeners()
			cancel()
			return nil, fmt.Errorf("%w: remote port 0", ErrInvalidOptions)
		}
		ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(addr, strconv.Itoa(int(p.Local))))
		if err != nil {
			f.closeListeners()
			cancel()
			return nil, fmt.Errorf("portforward: listening for port %d: %w", p.Remote, err)
		}
		f.lns = append(f.lns, ln)
		f.local[p.Remote] = uint16(ln.Addr().(*net.TCPAddr).Port)
	}
	for i, ln := range f.lns {
		remote := opts.Ports[i].Remote
		f.wg.Go(func() { f.accept(ln, remote) })
	}
	f.wg.Go(func() {
		<-ctx.Done()
		f.closeListeners()
	})
	return f, nil
}

// Local returns the local port forwarded to remote, or 0 if remote is not
// forwarded.
func (f *Forward) Local(remote uint16) uint16 { return f.local[remote] }

// Close stops listening, closes every forwarded connection and waits for
// them to end. It may be called more than once.
func (f *Forward) Close() error {
	f.once.Do(func() {
		f.cancel()
		f.closeListeners()
		f.mu.Lock()
		for c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
	})
	f.wg.Wait()
	return nil
}

// Wait blocks until the Forward has stopped (its context ended or Close
// was called) and every connection has ended.
func (f *Forward) Wait() {
	<-f.ctx.Done()
	f.wg.Wait()
}

func (f *Forward) closeListeners() {
	for _, ln := range f.lns {
		_ = ln.Close()
	}
}

func (f *Forward) track(c io.Closer) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *Forward) untrack(c io.Closer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}

func (f *Forward) accept(ln net.Listener, remote uint16) {
	for {
		local, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && f.ctx.Err() == nil {
				f.log.Warn("portforward: accepting a connection failed; port no longer forwarded", "port", remote, "err", err)
			}
			return
		}
		if !f.track(local) {
			_ = local.Close()
			return
		}
		f.wg.Go(func() {
			defer f.untrack(local)
			f.serve(local, remote)
		})
	}
}

// serve forwards one local connection; when either direction ends, both
// are closed.
func (f *Forward) serve(local net.Conn, remote uint16) {
	defer local.Close()
	conn, err := Dial(f.ctx, f.c, f.opts.Target, remote)
	if err != nil {
		if f.ctx.Err() == nil {
			f.log.Warn("portforward: opening a stream failed", "pod", f.opts.Target.Namespace+"/"+f.opts.Target.Pod, "port", remote, "err", err)
		}
		return
	}
	if !f.track(conn) {
		_ = conn.Close()
		return
	}
	defer f.untrack(conn)
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() {
		// The local side ended or failed: either way the connection ends.
		_, _ = io.Copy(conn, local)
		done <- struct{}{}
	}()
	go func() {
		_, err := io.Copy(local, conn)
		var re *RemoteError
		if errors.As(err, &re) {
			f.log.Warn("portforward: the kubelet reported an error", "pod", f.opts.Target.Namespace+"/"+f.opts.Target.Pod, "port", remote, "err", err)
		}
		done <- struct{}{}
	}()
	<-done
	_ = conn.Close()
	_ = local.Close()
	<-done
}
