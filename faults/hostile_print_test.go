package faults_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"go/ast"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/internal/secret"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook"
)

// Hostile 9: no credential can be printed. Every exported type of rest,
// auth, kubeconfig, fleet, manager and webhook that can hold a credential
// is built with known secrets (bearer token, password, basic header, token
// file, client key, exec plugin environment and token and key, kubeconfig
// token, password, key and auth-provider secrets, webhook serving key) and
// then printed: the value itself and every value reachable from it (its
// fields, exported or not, through pointers, interfaces, slices and
// maps), each at the top level, where fmt follows one level of pointer
// and calls no methods on unexported fields. Each is printed with %v,
// %+v, %#v, %s and %q, through log/slog's text and JSON handlers and with
// encoding/json, and the output is searched for every secret in the forms
// those printers give strings and bytes (as is, quoted, as a list of
// bytes, in hex, in base64). A field added tomorrow that holds a secret in
// readable form fails this test, wherever it is reachable.
func TestHostileNoCredentialPrints(t *testing.T) {
	dir := t.TempDir()
	s := newPrintSecrets(t, dir)

	// A server for the requests that make clients hold what they sent.
	var hs *hostile
	hs = newHostile(t, func(w http.ResponseWriter, r *http.Request) {
		if isWatch(r) {
			startWatch(w)
			hs.hang(r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	})
	host := hs.srv.URL
	roots := map[string]any{}
	// quiesce stops what runs on its own (watches) before the values are
	// printed, so that printing does not race with it.
	var quiesce []func()
	add := func(name string, v any) { roots[name] = v }

	// rest: Configs, Clients built from each kind of credential, a request
	// and its result and watch after they sent the credential.
	// A ping interval no other test uses keeps these clients off the
	// connection pools of the package's other tests (pools are shared by
	// transport settings): a pool another test closes later (a fleet
	// Cluster's Stop closes idle connections for seconds after) must not
	// change under the printer.
	const ownPool = 97 * time.Second
	cfgs := map[string]*rest.Config{
		"bearer":    {Host: host, BearerToken: s.bearer, AllowInsecureAuth: true, HealthPingInterval: ownPool},
		"basic":     {Host: host, Username: "me", Password: s.password, AllowInsecureAuth: true, HealthPingInterval: ownPool},
		"tokenfile": {Host: host, BearerTokenFile: s.tokenFile, AllowInsecureAuth: true, HealthPingInterval: ownPool},
		"clientkey": {Host: strings.Replace(host, "http:", "https:", 1), TLS: rest.TLSConfig{Insecure: true, CertData: s.clientCert, KeyData: s.clientKey}, HealthPingInterval: ownPool},
	}
	for name, cfg := range cfgs {
		add("rest.Config "+name, cfg)
		add("rest.TLSConfig "+name, cfg.TLS)
		rc, err := rest.NewClient(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		add("rest.Client "+name, rc)
		if name == "clientkey" {
			continue
		}
		// A request whose context has ended goes through the client's
		// credentials (which it then holds) and stops before a
		// connection is dialled: no goroutine of net/http changes what
		// is printed below.
		ended, end := context.WithCancel(t.Context())
		end()
		req := rc.Get().AbsPath("/api/v1/configmaps")
		res := req.Do(ended)
		if err := res.Error(); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", name, err)
		}
		add("rest.Request "+name, req)
		add("rest.Result "+name, res)
		wctx, stop := context.WithCancel(t.Context())
		ws, err := rc.Get().AbsPath("/api/v1/configmaps").Watch(wctx, func() runtime.Object { return &corev1.ConfigMap{} })
		if err != nil {
			t.Fatalf("%s: watch: %v", name, err)
		}
		add("rest.WatchStream "+name, ws)
		quiesce = append(quiesce, func() {
			ws.Stop()
			for range ws.ResultChan() {
			}
			stop()
		})
		add("client.Client "+name, client.New(rc, client.Options{}))
	}
	add("rest.BearerAuth", rest.BearerAuth(redactingSource{secret.New(s.bearer)}))

	// auth: an exec plugin after a run that returned a token and a client
	// certificate, the command it ran, and rotating certificate files.
	var ran auth.Command
	execCfg := auth.ExecConfig{Command: "plugin", APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveNever,
		Env: []auth.EnvVar{{Name: "PLUGIN_SECRET", Value: s.execEnv}}}
	execOpts := auth.ExecOptions{Config: execCfg, Environ: func() []string { return []string{"HOME=/nowhere"} },
		Runner: auth.RunnerFunc(func(ctx context.Context, cmd auth.Command) ([]byte, []byte, error) {
			ran = cmd
			out, _ := json.Marshal(map[string]any{"apiVersion": auth.ExecAPIV1, "kind": "ExecCredential", "status": map[string]any{
				"token": s.execToken, "clientCertificateData": string(s.execCert), "clientKeyData": string(s.execKey)}})
			return out, nil, nil
		})}
	ex, err := auth.NewExec(execOpts)
	if err != nil {
		t.Fatal(err)
	}
	execCfgRest := &rest.Config{Host: host, Auth: ex, AllowInsecureAuth: true, HealthPingInterval: ownPool}
	execClient, err := rest.NewClient(execCfgRest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.GetClientCertificate(nil); err != nil {
		t.Fatal(err)
	}
	add("auth.ExecConfig", execCfg)
	add("auth.EnvVar", execCfg.Env[0])
	add("auth.ExecOptions", execOpts)
	add("auth.Exec", ex)
	add("auth.Command", ran)
	add("rest.Client exec", execClient)
	certFiles, err := auth.NewCertFiles(auth.CertFilesOptions{CertFile: s.clientCertFile, KeyFile: s.clientKeyFile})
	if err != nil {
		t.Fatal(err)
	}
	add("auth.CertFiles", certFiles)

	// kubeconfig: a file with every kind of credential, its entries, and
	// the config built from it.
	kcPath := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kcPath, s.kubeconfig(host), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := kubeconfig.ReadFile(kcPath)
	if err != nil {
		t.Fatal(err)
	}
	add("kubeconfig.File", file)
	for name, u := range file.Users {
		add("kubeconfig.User "+name, u)
		if u.Exec != nil {
			add("kubeconfig.Exec "+name, u.Exec)
			add("kubeconfig.ExecEnvVar "+name, u.Exec.Env[0])
		}
	}
	kcOpts := kubeconfig.Options{Path: kcPath, DisableInCluster: true, AllowInsecureAuth: true}
	for _, ctxName := range []string{"token", "basic", "key"} {
		o := kcOpts
		o.Overrides.Context = ctxName
		cc, err := kubeconfig.Load(o)
		if err != nil {
			t.Fatalf("kubeconfig context %s: %v", ctxName, err)
		}
		add("kubeconfig.ClientConfig "+ctxName, cc)
	}

	// fleet, manager, webhook.
	cl, err := fleet.New("c", cfgs["bearer"], fleet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add("fleet.Cluster", cl)
	add("fleet.Kubeconfig", fleet.Kubeconfig{File: file, Options: kcOpts})
	hub, _ := rest.NewClient(cfgs["bearer"])
	add("fleet.Secrets", fleet.Secrets{Client: client.New(hub, client.Options{}), Kubeconfig: kcOpts})
	mopts := manager.Options{Config: cfgs["bearer"], MetricsAddr: "0"}
	add("manager.Options", mopts)
	m, err := manager.New(mopts)
	if err != nil {
		t.Fatal(err)
	}
	add("manager.Manager", m)
	wopts := webhook.Options{Addr: "127.0.0.1:0", CertFile: s.servingCertFile, KeyFile: s.servingKeyFile}
	add("webhook.Options", wopts)
	srv, err := webhook.New(wopts)
	if err != nil {
		t.Fatal(err)
	}
	add("webhook.Server", srv)
	add("certs.KeyPair", s.servingPair)

	for _, f := range quiesce {
		f()
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			p := &printer{secrets: s.needles(), seen: map[visit]bool{}}
			p.root(name, reflect.ValueOf(root))
			for _, leak := range p.leaks {
				t.Error(leak)
			}
			if p.nodes > maxNodes {
				t.Errorf("more than %d values reachable; raise maxNodes or skip a package that cannot hold credentials", maxNodes)
			}
			t.Logf("%d values printed", p.nodes)
		})
	}
}

// printSecrets are the credentials the printing test builds its values
// with, and the files holding some of them.
type printSecrets struct {
	bearer, password, tokenFileText, execEnv, execToken string
	kcToken, kcPassword, providerSecret                 string
	clientCert, clientKey, execCert, execKey            []byte
	kcCert, kcKey                                       []byte
	servingPair                                         certs.KeyPair

	tokenFile, clientCertFile, clientKeyFile, servingCertFile, servingKeyFile string
}

func newPrintSecrets(t *testing.T, dir string) *printSecrets {
	s := &printSecrets{
		bearer: "bearer-SECRET-3f9a1c", password: "password-SECRET-77e2", tokenFileText: "tokenfile-SECRET-5b1d",
		execEnv: "execenv-SECRET-8c3e", execToken: "exectoken-SECRET-2a7f",
		kcToken: "kctoken-SECRET-4e21", kcPassword: "kcpassword-SECRET-0b9c", providerSecret: "provider-SECRET-91d0",
	}
	s.clientCert, s.clientKey = selfSigned(t, "client")
	s.execCert, s.execKey = selfSigned(t, "exec")
	s.kcCert, s.kcKey = selfSigned(t, "kubeconfig")
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s.tokenFile = write("token", []byte(s.tokenFileText+"\n"))
	s.clientCertFile = write("client.crt", s.clientCert)
	s.clientKeyFile = write("client.key", s.clientKey)
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.servingPair, err = ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	s.servingCertFile = write("tls.crt", s.servingPair.CertPEM)
	s.servingKeyFile = write("tls.key", s.servingPair.KeyPEM)
	return s
}

// kubeconfig is a kubeconfig for host with a context per kind of
// credential.
func (s *printSecrets) kubeconfig(host string) []byte {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
current-context: token
clusters:
- name: c
  cluster:
    server: %[1]s
contexts:
- name: token
  context: {cluster: c, user: token}
- name: basic
  context: {cluster: c, user: basic}
- name: key
  context: {cluster: c, user: key}
users:
- name: token
  user:
    token: %[2]s
- name: basic
  user:
    username: me
    password: %[3]s
- name: key
  user:
    client-certificate-data: %[4]s
    client-key-data: %[5]s
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: plugin
      interactiveMode: Never
      env:
      - name: PLUGIN_SECRET
        value: %[6]s
- name: provider
  user:
    auth-provider:
      name: oidc
      config:
        id-token: %[7]s
        refresh-token: %[7]s
`, host, s.kcToken, s.kcPassword, b64(s.kcCert), b64(s.kcKey), s.execEnv, s.providerSecret)
}

// needles are the secrets in every form a printer may give them.
func (s *printSecrets) needles() []needle {
	var out []needle
	text := func(name, v string) {
		out = append(out, needleOf(name, v, v))
	}
	key := func(name string, pemData []byte) {
		// The key's PEM body, a line from its middle: distinctive, and in
		// one piece in every printed form.
		lines := strings.Split(strings.TrimSpace(string(pemData)), "\n")
		out = append(out, needleOf(name, lines[len(lines)/2], string(pemData)))
	}
	text("bearer token", s.bearer)
	text("password", s.password)
	text("basic header", base64.StdEncoding.EncodeToString([]byte("me:"+s.password)))
	text("token file", s.tokenFileText)
	text("exec plugin env", s.execEnv)
	text("exec plugin token", s.execToken)
	text("kubeconfig token", s.kcToken)
	text("kubeconfig password", s.kcPassword)
	text("kubeconfig basic header", base64.StdEncoding.EncodeToString([]byte("me:"+s.kcPassword)))
	text("auth-provider secret", s.providerSecret)
	key("client key", s.clientKey)
	key("exec plugin client key", s.execKey)
	key("kubeconfig client key", s.kcKey)
	key("webhook serving key", s.servingPair.KeyPEM)
	return out
}

// needle is one secret and the forms it is searched in.
type needle struct {
	name  string
	forms []string
}

// needleOf makes a needle of piece (a distinctive part of the secret
// whole) as printers show strings and bytes: as is, quoted, as fmt shows
// a byte slice (decimal and %#v hex), in hex, and whole in base64 (as
// encoding/json shows bytes).
func needleOf(name, piece, whole string) needle {
	var dec, gohex []string
	for _, c := range []byte(piece) {
		dec = append(dec, strconv.Itoa(int(c)))
		gohex = append(gohex, fmt.Sprintf("0x%x", c))
	}
	quoted := strconv.Quote(piece)
	return needle{name: name, forms: []string{
		piece,
		quoted[1 : len(quoted)-1],
		strings.Join(dec, " "),
		strings.Join(gohex, ", "),
		fmt.Sprintf("%x", piece),
		base64.StdEncoding.EncodeToString([]byte(whole)),
	}}
}

// selfSigned returns a certificate and its EC private key, both PEM.
func selfSigned(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// maxNodes bounds the values one root's walk prints.
const maxNodes = 20000

// printer walks every value reachable from a root and prints each one
// that fmt could be handed at the top level: the root, the target of
// every pointer and the dynamic value of every interface.
type printer struct {
	secrets []needle
	seen    map[visit]bool
	nodes   int
	leaks   []string
}

type visit struct {
	addr uintptr
	typ  reflect.Type
}

// skipped are packages whose values hold no credential of this module
// and are large or opaque to walk: the runtime and reflection, locks,
// scheme and codec tables, metrics and tracing registries, connection
// pools and their buffers, and parsed keys (held as numbers, not text).
var skipped = []string{
	"reflect", "runtime", "sync", "unsafe", "context", "time", "os", "bufio", "net", "crypto/", "math/big", "log/slog",
	"k8s.io/apimachinery/pkg/runtime", "k8s.io/kube-openapi", "github.com/prometheus/", "go.opentelemetry.io/",
	"github.com/kubego/kubego/internal/codec", "github.com/kubego/kubego/scheme", "google.golang.org/protobuf",
}

func skip(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	if pkg == "net/http" {
		// The connection pool (and its buffers of past requests) and the
		// response bodies (and the requests they keep) are net/http's;
		// the RoundTrippers around them are this module's.
		return t.Name() == "Transport" || !ast.IsExported(t.Name())
	}
	if pkg == "crypto/tls" && t.Name() == "Conn" {
		// A live TLS connection: its state is changed by net/http's
		// goroutines; the credentials it was made with are printed from
		// the tls.Config and certificates that hold them.
		return true
	}
	if pkg == "github.com/kubego/kubego/internal/secret" {
		return true // the one holder of credentials, printed as [redacted]
	}
	for _, p := range skipped {
		if pkg == p || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p)) {
			// sync/atomic values are looked into (see walk).
			return !(pkg == "sync/atomic")
		}
	}
	return false
}

func (p *printer) root(name string, v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		p.walk(name, v) // prints what it points to, and a pointer to that
		return
	}
	v = addressable(v)
	p.print(name, v)
	p.walk(name, v)
}

// withoutConcurrent returns v, or a copy of it whose fields that hold a
// net/http connection pool or response body, or a context, are nil. Those
// belong to the standard library and are changed by its goroutines as they
// are printed (fmt's %s and %q print through a pointer they cannot format,
// one level down): printing them is a data race of the printing, not of
// the module (see skip).
func withoutConcurrent(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Struct {
		return v
	}
	var c reflect.Value
	for i := range v.NumField() {
		if !concurrent(v.Field(i)) {
			continue
		}
		if !c.IsValid() {
			c = reflect.New(v.Type()).Elem()
			c.Set(v)
		}
		f := c.Field(i)
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetZero()
	}
	if c.IsValid() {
		return c
	}
	return v
}

// concurrent reports whether field f holds a value of the standard
// library that its goroutines change: a connection pool, a response body,
// a context.
func concurrent(f reflect.Value) bool {
	t := f.Type()
	if t == reflect.TypeFor[*http.Transport]() || t == reflect.TypeFor[context.Context]() {
		return true
	}
	if t == reflect.TypeFor[http.RoundTripper]() {
		// The next RoundTripper of a chain ends in net/http's connection
		// pool; fmt would follow it there (a %s of a pointer prints what
		// it points to). walk visits each link of the chain on its own.
		return true
	}
	if t.PkgPath() == "sync/atomic" && t.Kind() == reflect.Struct && !strings.HasPrefix(t.Name(), "Pointer") && t.Name() != "Value" {
		// A counter or flag that connection goroutines change: no
		// credential fits in it, and reading it plainly would race.
		return true
	}
	if t.Kind() != reflect.Interface || f.IsNil() {
		return false
	}
	d := f.Elem().Type()
	if d.Kind() == reflect.Pointer {
		d = d.Elem()
	}
	return d.PkgPath() == "context" || (d.PkgPath() == "net/http" && (d.Name() == "Transport" || !ast.IsExported(d.Name()))) || (d.PkgPath() == "crypto/tls" && d.Name() == "Conn") || (d.PkgPath() == "net" && !ast.IsExported(d.Name()))
}

// usable returns v without the read-only mark of unexported fields, so
// that it can be printed and walked.
func usable(v reflect.Value) (reflect.Value, bool) {
	if v.CanInterface() {
		return v, true
	}
	if v.CanAddr() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem(), true
	}
	return v, false
}

// addressable returns an addressable copy of v (which must be usable).
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

func (p *printer) walk(path string, v reflect.Value) {
	if p.nodes > maxNodes || !v.IsValid() || skip(v.Type()) {
		return
	}
	v, ok := usable(v)
	if !ok {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		k := visit{v.Pointer(), v.Type()}
		if p.seen[k] {
			return
		}
		p.seen[k] = true
		e := v.Elem()
		p.print(path, e)
		p.walk(path, e)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			p.walk(path+"("+e.Type().String()+")", e)
			return
		}
		e = addressable(e)
		p.print(path+"("+e.Type().String()+")", e)
		p.walk(path+"("+e.Type().String()+")", e)
	case reflect.Struct:
		t := v.Type()
		if t.PkgPath() == "sync/atomic" && strings.HasPrefix(t.Name(), "Pointer[") {
			// atomic.Pointer[T] keeps its *T as an unsafe.Pointer.
			target := t.Field(0).Type.Elem() // [0]*T → *T
			ptr := reflect.NewAt(target, unsafe.Pointer(v.FieldByName("v").UnsafeAddr())).Elem()
			p.walk(path+".Load()", ptr)
			return
		}
		for i := range v.NumField() {
			p.walk(path+"."+t.Field(i).Name, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range min(v.Len(), 256) {
			p.walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		for n := 0; iter.Next() && n < 256; n++ {
			key := fmt.Sprint(iter.Key())
			p.walk(path+"["+key+"]", addressable(iter.Key()))
			p.walk(path+"["+key+"]", addressable(iter.Value()))
		}
	}
}

// print prints v (and a pointer to it, when it is addressable) every way
// and records the secrets found.
func (p *printer) print(path string, v reflect.Value) {
	if p.nodes > maxNodes || !v.IsValid() || skip(v.Type()) {
		return
	}
	v, ok := usable(v)
	if !ok {
		return
	}
	p.nodes++
	v = withoutConcurrent(v)
	vals := []any{v.Interface()}
	if v.CanAddr() {
		vals = append(vals, v.Addr().Interface())
	}
	var out bytes.Buffer
	for _, x := range vals {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			fmt.Fprintf(&out, verb+"\n", x)
		}
		slog.New(slog.NewTextHandler(&out, nil)).Info("print", "value", x)
		slog.New(slog.NewJSONHandler(&out, nil)).Info("print", "value", x)
		if j, err := json.Marshal(x); err == nil {
			out.Write(j)
		}
	}
	text := out.String()
	for _, n := range p.secrets {
		for _, f := range n.forms {
			if strings.Contains(text, f) {
				p.leaks = append(p.leaks, fmt.Sprintf("%s (%s) prints the %s", path, v.Type(), n.name))
				break
			}
		}
	}
}

// redactingSource is a rest.TokenSource that keeps its token as the
// module does.
type redactingSource struct{ tok secret.Value }

func (s redactingSource) Token(context.Context) (string, error)           { return s.tok.Reveal(), nil }
func (s redactingSource) Refresh(context.Context, string) (string, error) { return s.tok.Reveal(), nil }
