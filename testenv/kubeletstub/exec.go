package kubeletstub

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// Channel numbers of the exec and attach streams.
const (
	chanStdin = iota
	chanStdout
	chanStderr
	chanError
	chanResize
)

func (k *Kubelet) serveExec(w http.ResponseWriter, r *http.Request) {
	cmd := r.URL.Query()["command"]
	if len(cmd) == 0 {
		http.Error(w, "you must specify at least 1 command", http.StatusBadRequest)
		return
	}
	k.serveStream(w, r, cmd)
}

func (k *Kubelet) serveAttach(w http.ResponseWriter, r *http.Request) {
	k.serveStream(w, r, nil)
}

// serveStream serves one exec (cmd set) or attach session over the
// WebSocket channel protocol (v5 or v4) or over SPDY, as a kubelet does.
func (k *Kubelet) serveStream(w http.ResponseWriter, r *http.Request, cmd []string) {
	stdin, stdout, stderr, tty := flag(r, "input"), flag(r, "output"), flag(r, "error"), flag(r, "tty")
	if tty && stderr {
		http.Error(w, "stdout and stderr are merged with a tty", http.StatusBadRequest)
		return
	}
	if !stdin && !stdout && !stderr {
		http.Error(w, "you must specify at least one of stdin, stdout, stderr", http.StatusBadRequest)
		return
	}
	p := &Process{
		Namespace: r.PathValue("namespace"),
		Pod:       r.PathValue("pod"),
		Container: r.PathValue("container"),
		Command:   cmd,
		Attach:    cmd == nil,
		TTY:       tty,
	}
	switch {
	case wsstream.IsWebSocketRequest(r):
		k.serveWebSocketStream(w, r, p, stdin, stdout, stderr)
	case httpstream.IsUpgradeRequest(r):
		k.serveSPDYStream(w, r, p, stdin, stdout, stderr)
	default:
		http.Error(w, "upgrade to WebSocket or SPDY required", http.StatusBadRequest)
	}
}

// serveWebSocketStream serves a session over the WebSocket channel
// protocol.
func (k *Kubelet) serveWebSocketStream(w http.ResponseWriter, r *http.Request, p *Process, stdin, stdout, stderr bool) {
	tty := p.TTY
	channels := make([]wsstream.ChannelType, 5)
	set := func(i int, on bool, t wsstream.ChannelType) {
		if on {
			channels[i] = t
		}
	}
	set(chanStdin, stdin, wsstream.ReadChannel)
	set(chanStdout, stdout, wsstream.WriteChannel)
	set(chanStderr, stderr, wsstream.WriteChannel)
	set(chanError, true, wsstream.WriteChannel)
	// The resize channel is read even without a tty: its end tells that
	// the client is gone, which nothing else does.
	set(chanResize, true, wsstream.ReadChannel)
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		"v5.channel.k8s.io": {Binary: true, Channels: channels},
		"v4.channel.k8s.io": {Binary: true, Channels: channels},
	})
	_, streams, err := conn.Open(w, r)
	if err != nil {
		k.log.Debug("kubeletstub: opening a stream failed", "err", err)
		return
	}
	defer conn.Close()
	// Like a kubelet: an empty message on the lowest writable channel says
	// the stream is established.
	switch {
	case stdout:
		_, _ = streams[chanStdout].Write(nil)
	case stderr:
		_, _ = streams[chanStderr].Write(nil)
	default:
		_, _ = streams[chanError].Write(nil)
	}

	ctx, cancel := context.WithCancel(k.ctx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel)
	defer stop()
	if stdin {
		p.Stdin = streams[chanStdin]
	}
	if stdout {
		p.Stdout = streams[chanStdout]
	}
	if stderr {
		p.Stderr = streams[chanStderr]
	}
	sizes := make(chan TerminalSize, maxPendingSizes)
	if tty {
		p.Resize = sizes
	}
	go func() {
		readSizes(ctx, streams[chanResize], sizes)
		cancel()
	}()
	runErr := k.opts.Run(ctx, p)
	if errors.Is(runErr, ErrHangUp) || k.ctx.Err() != nil {
		return // closed without a result
	}
	st := status(runErr)
	b, err := json.Marshal(st)
	if err != nil {
		return
	}
	_, _ = streams[chanError].Write(b)
}

// maxPendingSizes is how many terminal sizes wait for Run to take them;
// later ones are dropped, so a Run that ignores them never stalls the
// stream.
const maxPendingSizes = 64

// readSizes decodes terminal sizes from the resize channel until it ends.
func readSizes(ctx context.Context, r io.Reader, out chan<- TerminalSize) {
	defer close(out)
	dec := json.NewDecoder(r)
	for {
		var size TerminalSize
		if err := dec.Decode(&size); err != nil {
			return
		}
		select {
		case out <- size:
		case <-ctx.Done():
			return
		default: // Run is not taking them
		}
	}
}

// status is the result a kubelet writes on the error channel.
func status(err error) *metav1.Status {
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}}
	var code ExitCode
	switch {
	case err == nil:
		st.Status = metav1.StatusSuccess
	case errors.As(err, &code):
		st.Status = metav1.StatusFailure
		st.Reason = "NonZeroExitCode"
		st.Message = "command terminated with non-zero exit code: error executing command, exit status " + strconv.Itoa(int(code))
		st.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(int(code))}}}
	default:
		st.Status = metav1.StatusFailure
		st.Reason = metav1.StatusReasonInternalError
		st.Message = err.Error()
	}
	return st
}
