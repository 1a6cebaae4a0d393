package kubeletstub

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/podlogs"
)

// Options configure Start.
type Options struct {
	// Authority signs the serving certificate; required.
	Authority *Authority
	// NodeName is the name of the Node RegisterNode creates; empty means
	// "kubeletstub".
	NodeName string
	// Translated leaves the ExtendWebSocketsToKubelet feature out of the
	// Node's declared features, like kubelets before 1.36: kube-apiserver
	// then speaks SPDY to the stand-in for v5 exec and attach and for
	// tunnelled port-forward (it still hands v4 WebSocket streams over
	// unchanged). The stand-in serves both either way.
	Translated bool
	// Run runs exec and attach sessions; nil means Builtins.
	Run RunFunc
	// Dial connects a port-forward stream to a port of a Pod; nil dials
	// 127.0.0.1:port.
	Dial func(ctx context.Context, namespace, pod string, port uint16) (net.Conn, error)
	// Logger receives the stand-in's failures. Nil means the kubego
	// default: warnings to slog.Default().
	Logger *slog.Logger
}

// Kubelet is a running stand-in. Its methods are safe for concurrent use.
type Kubelet struct {
	opts   Options
	log    *slog.Logger
	ln     net.Listener
	srv    *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	logs   podlogs.Store
}

// Start serves the stand-in on 127.0.0.1 on a free port until ctx ends or
// Close is called.
func Start(ctx context.Context, opts Options) (*Kubelet, error) {
	if opts.Authority == nil {
		return nil, errors.New("kubeletstub: Options.Authority is required")
	}
	if opts.NodeName == "" {
		opts.NodeName = "kubeletstub"
	}
	if opts.Run == nil {
		opts.Run = Builtins
	}
	if opts.Dial == nil {
		opts.Dial = dialLoopback
	}
	pair, err := opts.Authority.serving()
	if err != nil {
		return nil, fmt.Errorf("kubeletstub: %w", err)
	}
	cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("kubeletstub: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("kubeletstub: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	k := &Kubelet{opts: opts, log: defaultlog.Or(opts.Logger), ln: ln, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/exec/{namespace}/{pod}/{container}", k.serveExec)
	mux.HandleFunc("/attach/{namespace}/{pod}/{container}", k.serveAttach)
	mux.HandleFunc("/portForward/{namespace}/{pod}", k.servePortForward)
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", k.serveLogs)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	k.srv = &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(k.log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(k.done)
		if err := k.srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			k.log.Warn("kubeletstub: serving failed", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = k.srv.Close() })
	return k, nil
}

// Port is the port the stand-in serves on.
func (k *Kubelet) Port() int { return k.ln.Addr().(*net.TCPAddr).Port }

// NodeName is the name of the stand-in's Node.
func (k *Kubelet) NodeName() string { return k.opts.NodeName }

// Close stops serving and waits for the server to stop. Streams in
// progress end without a result, as when a kubelet dies.
func (k *Kubelet) Close() error {
	k.cancel()
	err := k.srv.Close()
	<-k.done
	return err
}

func dialLoopback(ctx context.Context, _, _ string, port uint16) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(port)))
}

// flag reads a boolean query parameter as the kubelet does: "1" or "true".
func flag(r *http.Request, name string) bool {
	v := strings.ToLower(r.URL.Query().Get(name))
	return v == "1" || v == "true"
}

// SetLog sets what the stand-in serves as the log of a container of a
// Pod (GET pods/{name}/log through kube-apiserver); a container without
// one has an empty log.
func (k *Kubelet) SetLog(namespace, pod, container string, content []byte) {
	k.logs.Set(podlogs.Key{Namespace: namespace, Pod: pod, Container: container}, content)
}

// AppendLog adds content to the log of a container: what a follower of
// the log (follow=true) receives next.
func (k *Kubelet) AppendLog(namespace, pod, container string, content []byte) {
	k.logs.Append(podlogs.Key{Namespace: namespace, Pod: pod, Container: container}, content)
}

// serveLogs serves a container's log as a kubelet does, with follow,
// tailLines and limitBytes.
func (k *Kubelet) serveLogs(w http.ResponseWriter, r *http.Request) {
	key := podlogs.Key{Namespace: r.PathValue("namespace"), Pod: r.PathValue("pod"), Container: r.PathValue("container")}
	k.logs.Serve(r.Context(), w, key, podlogs.ParseOptions(r))
}
