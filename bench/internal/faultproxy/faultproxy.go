// Package faultproxy is a loopback reverse proxy in front of a
// kube-apiserver that can force a relist: on command it cuts every open
// watch and answers the next resuming watch with 410 Gone, as a server does
// when the resourceVersion has been compacted. Clients talk plain HTTP to
// it without credentials; it talks TLS with the admin client certificate
// to the server.
package faultproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"

	"github.com/kubego/kubego/rest"
)

// ControlPath arms the fault: POST to it.
const ControlPath = "/__bench/relist"

// Proxy is a running fault proxy.
type Proxy struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	watches map[*http.Request]context.CancelFunc
	gone    int
	served  int
}

// Start starts a proxy to the server of cfg (which must carry the CA and a
// client certificate as data) on a free loopback port.
func Start(cfg *rest.Config) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.TLS.CAData) {
		return nil, errors.New("faultproxy: no CA data in the config")
	}
	cert, err := tls.X509KeyPair(cfg.TLS.CertData, cfg.TLS.KeyData)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: client certificate: %w", err)
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ServerName: cfg.TLS.ServerName},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, watches: map[*http.Request]context.CancelFunc{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     tr,
		FlushInterval: -1,
		ErrorLog:      nil,
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ControlPath {
			p.arm()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		q := r.URL.Query()
		isWatch := q.Get("watch") == "true" || q.Get("watch") == "1"
		if !isWatch {
			rp.ServeHTTP(w, r)
			return
		}
		if q.Get("sendInitialEvents") != "true" && p.takeGone() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version (forced by the bench fault proxy)","reason":"Expired","code":410}`)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		p.mu.Lock()
		p.watches[r] = cancel
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.watches, r)
			p.mu.Unlock()
			cancel()
		}()
		rp.ServeHTTP(w, r.WithContext(ctx))
	})}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *Proxy) arm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = 1
	for r, cancel := range p.watches {
		cancel()
		delete(p.watches, r)
	}
}

func (p *Proxy) takeGone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone == 0 {
		return false
	}
	p.gone--
	p.served++
	return true
}

// URL is the proxy's base URL.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// ControlURL is the URL to POST to force a relist.
func (p *Proxy) ControlURL() string { return p.URL() + ControlPath }

// WriteKubeconfig writes a kubeconfig pointing at the proxy, without
// credentials.
func (p *Proxy) WriteKubeconfig(path string) error {
	s := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: %s
users:
- name: anonymous
  user: {}
contexts:
- name: proxy
  context:
    cluster: proxy
    user: anonymous
current-context: proxy
`, p.URL())
	return os.WriteFile(path, []byte(s), 0o600)
}

// Close stops the proxy.
func (p *Proxy) Close() error { return p.srv.Close() }
