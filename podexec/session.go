package podexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/websocket"
)

// Channel numbers of the channel protocol: each binary message starts with
// one of them.
const (
	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	chanResize = 4
	// chanClose (v5) is followed by the number of a channel the client
	// will not write to any more.
	chanClose = 255
)

const (
	// chunk is the largest piece of stdin sent in one message, and the
	// size of the buffer output is copied through.
	chunk = 32 << 10
	// maxStatus bounds the result the server writes on the error channel.
	maxStatus = 64 << 10
)

// session is one exec or attach stream.
type session struct {
	conn     *websocket.Conn
	protocol string
	opts     Options
	stderr   bool
}

func (s *session) run(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = s.conn.Close() })
	defer stop()
	done := make(chan struct{})
	var wg sync.WaitGroup
	if s.opts.Stdin != nil {
		// Not waited for: a Read of the caller's Stdin may block forever.
		go s.sendStdin(done)
	}
	if s.opts.TTY && s.opts.Resize != nil {
		wg.Go(func() { s.sendSizes(done) })
	}
	status, readErr := s.receive()
	close(done)
	_ = s.conn.Close()
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("podexec: %w", context.Cause(ctx))
	}
	if readErr != nil {
		return &StreamError{Protocol: s.protocol, Err: readErr}
	}
	return s.result(status)
}

// receive reads messages until the server closes the stream, copying output
// to the caller's writers, and returns what came on the error channel.
func (s *session) receive() ([]byte, error) {
	buf := make([]byte, chunk)
	var status []byte
	for {
		op, r, err := s.conn.NextReader()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Normal() {
				return status, nil
			}
			return status, err
		}
		if op != websocket.OpBinary {
			continue // only binary protocols are offered
		}
		var ch [1]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if err == io.EOF {
				continue // an empty message
			}
			return status, err
		}
		var w io.Writer
		switch ch[0] {
		case chanStdout:
			w = s.opts.Stdout
		case chanStderr:
			if s.stderr {
				w = s.opts.Stderr
			}
		case chanError:
			b, err := io.ReadAll(io.LimitReader(r, maxStatus+1-int64(len(status))))
			if err != nil {
				return status, err
			}
			status = append(status, b...)
			if len(status) > maxStatus {
				return status, fmt.Errorf("result on the error channel is longer than %d bytes", maxStatus)
			}
			continue
		}
		if w == nil {
			continue // skipped by NextReader
		}
		if _, err := copyMessage(w, r, buf); err != nil {
			return status, err
		}
	}
}

// copyMessage copies one message's payload to w through buf. An error of w
// is returned as is; one of r (the connection) too.
func copyMessage(w io.Writer, r io.Reader, buf []byte) (int64, error) {
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return total, fmt.Errorf("writing output: %w", werr)
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// sendStdin copies Stdin to the stdin channel; at its end, under v5, it
// tells the server that stdin is closed.
func (s *session) sendStdin(done <-chan struct{}) {
	buf := make([]byte, chunk)
	prefix := []byte{chanStdin}
	for {
		n, err := s.opts.Stdin.Read(buf)
		select {
		case <-done:
			return
		default:
		}
		if n > 0 {
			if s.conn.WriteMessage(websocket.OpBinary, prefix, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			// A failing Stdin ends the input like its end does.
			if s.protocol == protocolV5 {
				_ = s.conn.WriteMessage(websocket.OpBinary, []byte{chanClose, chanStdin})
			}
			return
		}
	}
}

// sendSizes sends each terminal size to the resize channel.
func (s *session) sendSizes(done <-chan struct{}) {
	prefix := []byte{chanResize}
	for {
		select {
		case <-done:
			return
		case size, ok := <-s.opts.Resize:
			if !ok {
				return
			}
			b, _ := json.Marshal(struct{ Width, Height uint16 }{size.Width, size.Height})
			if s.conn.WriteMessage(websocket.OpBinary, prefix, b) != nil {
				return
			}
		}
	}
}

// result turns the error channel's content into Run's result.
func (s *session) result(raw []byte) error {
	if len(raw) == 0 {
		return &StreamError{Protocol: s.protocol, Err: ErrNoStatus}
	}
	var st metav1.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return &StreamError{Protocol: s.protocol, Err: fmt.Errorf("decoding the result: %w", err)}
	}
	if st.Status == metav1.StatusSuccess {
		return nil
	}
	if st.Reason == "NonZeroExitCode" && st.Details != nil {
		for _, cause := range st.Details.Causes {
			if cause.Type != "ExitCode" {
				continue
			}
			code, err := strconv.Atoi(cause.Message)
			if err != nil {
				break
			}
			return &ExitError{Code: code, Message: st.Message}
		}
	}
	return &apierrors.StatusError{ErrStatus: st}
}
