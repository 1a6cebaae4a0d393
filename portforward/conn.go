package portforward

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kubego/kubego/internal/websocket"
	"github.com/kubego/kubego/rest"
)

const (
	protocol = "v4.channel.k8s.io"
	// chunk is the largest piece of data sent in one message.
	chunk = 32 << 10
	// maxRemoteError bounds what is kept of the error channel.
	maxRemoteError = 16 << 10
	chanData       = 0
	chanError      = 1
)

// Target names the Pod whose ports are reached.
type Target struct {
	Namespace string
	Pod       string
}

// Conn is one forwarded connection to a port of the Pod. Read and Write
// may be called from different goroutines; Close is safe at any time.
type Conn struct {
	ws     *websocket.Conn
	target Target
	port   uint16
	stop   func() bool

	rmu  sync.Mutex
	cur  io.Reader // the data message being read
	skip [2]int    // port prefix bytes still to drop, per channel
	rerr error     // sticky read error

	wmu sync.Mutex
}

// Dial opens one connection to port of the Pod. Cancelling ctx closes the
// connection (also after Dial has returned). Refusals by the server are
// *apierrors.StatusError; the port being closed in the Pod shows up as a
// *RemoteError from the first Read.
func Dial(ctx context.Context, c *rest.Client, target Target, port uint16) (*Conn, error) {
	if target.Namespace == "" || target.Pod == "" {
		return nil, fmt.Errorf("%w: Namespace and Pod are required", ErrInvalidOptions)
	}
	if port == 0 {
		return nil, fmt.Errorf("%w: port 0", ErrInvalidOptions)
	}
	req := c.Get().Namespace(target.Namespace).Resource("pods").Name(target.Pod).SubResource("portforward").
		Param("ports", strconv.Itoa(int(port)))
	upgrade := func(ctx context.Context, h http.Header) (io.ReadWriteCloser, http.Header, error) {
		for k, v := range h {
			req.SetHeader(k, v...)
		}
		return req.Upgrade(ctx)
	}
	ws, _, err := websocket.Dial(ctx, upgrade, protocol)
	if err != nil {
		return nil, err
	}
	conn := &Conn{ws: ws, target: target, port: port, skip: [2]int{2, 2}}
	conn.stop = context.AfterFunc(ctx, func() { _ = ws.Close() })
	return conn, nil
}

// Read reads data the Pod's port sent. It returns io.EOF once the kubelet
// closed the connection cleanly, and a *RemoteError for a failure it
// reported.
func (c *Conn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		if c.rerr != nil {
			return 0, c.rerr
		}
		if c.cur != nil {
			n, err := c.cur.Read(p)
			if err == io.EOF {
				c.cur = nil
				err = nil
			}
			if n > 0 || err != nil {
				if err != nil {
					c.rerr = err
				}
				return n, err
			}
			continue
		}
		if err := c.next(); err != nil {
			c.rerr = err
		}
	}
}

// next reads messages until one with data starts (c.cur is set) or the
// stream ends (an error is returned).
func (c *Conn) next() error {
	for {
		op, r, err := c.ws.NextReader()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Normal() {
				return io.EOF
			}
			return err
		}
		if op != websocket.OpBinary {
			continue
		}
		var ch [1]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if err == io.EOF {
				continue
			}
			return err
		}
		if ch[0] != chanData && ch[0] != chanError {
			continue
		}
		// Each channel starts with the port number, two bytes.
		for c.skip[ch[0]] > 0 {
			var b [1]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				if err == io.EOF {
					break
				}
				return err
			}
			c.skip[ch[0]]--
		}
		if ch[0] == chanData {
			c.cur = r
			return nil
		}
		msg, err := io.ReadAll(io.LimitReader(r, maxRemoteError))
		if err != nil {
			return err
		}
		if len(msg) > 0 {
			return &RemoteError{Port: c.port, Message: string(msg)}
		}
	}
}

// Write sends p to the Pod's port, in messages of at most 32 KiB.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	prefix := []byte{chanData}
	written := 0
	for len(p) > 0 {
		n := min(len(p), chunk)
		if err := c.ws.WriteMessage(websocket.OpBinary, prefix, p[:n]); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// Close closes the connection. Blocked reads and writes return.
func (c *Conn) Close() error {
	c.stop()
	return c.ws.Close()
}

// Addr is the address of one end of a forwarded connection.
type Addr struct {
	Target Target
	Port   uint16
}

// Network returns "portforward".
func (a Addr) Network() string { return "portforward" }

func (a Addr) String() string {
	return a.Target.Namespace + "/" + a.Target.Pod + ":" + strconv.Itoa(int(a.Port))
}

// LocalAddr returns the Pod and port, like RemoteAddr: the local end of
// the stream has no address of its own.
func (c *Conn) LocalAddr() net.Addr { return Addr{Target: c.target, Port: c.port} }

// RemoteAddr returns the Pod and port.
func (c *Conn) RemoteAddr() net.Addr { return Addr{Target: c.target, Port: c.port} }

// SetDeadline returns ErrDeadline.
func (c *Conn) SetDeadline(time.Time) error { return ErrDeadline }

// SetReadDeadline returns ErrDeadline.
func (c *Conn) SetReadDeadline(time.Time) error { return ErrDeadline }

// SetWriteDeadline returns ErrDeadline.
func (c *Conn) SetWriteDeadline(time.Time) error { return ErrDeadline }

var _ net.Conn = (*Conn)(nil)
