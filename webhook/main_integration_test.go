package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// fixture is a webhook server on loopback that the shared kube-apiserver
// can call, and an admin rest client.
type fixture struct {
	cp   *testenv.ControlPlane
	rc   *rest.Client
	tls  *tlsEnv
	srv  *webhook.Server
	url  string
	stop func() // stops the server and waits for Start to return

	mu    sync.Mutex
	calls map[string]*atomic.Int64
}

func newFixture(t testing.TB, opts webhook.Options) *fixture {
	t.Helper()
	cp := testenv.Shared(t)
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	e := newTLSEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Listener, opts.CertFile, opts.KeyFile = ln, e.files.CertFile, e.files.KeyFile
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := webhook.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	<-srv.Serving()
	f := &fixture{cp: cp, rc: rc, tls: e, srv: srv, url: "https://" + srv.Addr().String(), calls: map[string]*atomic.Int64{}}
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("webhook server: %v", err)
			}
		})
	}
	t.Cleanup(f.stop)
	return f
}

// handle registers h at path, counting the requests it gets.
func (f *fixture) handle(path string, h http.Handler) {
	n := new(atomic.Int64)
	f.mu.Lock()
	f.calls[path] = n
	f.mu.Unlock()
	f.srv.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
}

func (f *fixture) called(path string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[path].Load()
}

// install registers the webhooks and removes them at cleanup.
func (f *fixture) install(t testing.TB, w testenv.Webhooks) {
	t.Helper()
	w.URL, w.CABundle = f.url, f.tls.ca.CertPEM
	if err := f.cp.InstallWebhooks(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.cp.UninstallWebhooks(context.Background(), w.Name); err != nil {
			t.Error(err)
		}
	})
}

// eventually polls cond (kubegotest.Eventually, with its default bound):
// kube-apiserver picks up webhook configurations and CRD changes
// asynchronously.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	kubegotest.Eventually(context.Background(), t, func(context.Context) error {
		if !cond() {
			return fmt.Errorf("waiting for %s", what)
		}
		return nil
	})
}

func rules(group string, resources ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: resources},
	}}
}

// crdVersion is one version of a test CRD: its name, whether it is the
// storage version, and the properties of its spec.
type crdVersion struct {
	name    string
	storage bool
	spec    map[string]any
}

// installCRD installs the namespaced CRD widgets.<group>, removes it at
// cleanup, and waits until every version is served.
func installCRD(t *testing.T, rc *rest.Client, group string, versions ...crdVersion) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	name := "widgets." + group
	var vs []any
	for _, v := range versions {
		vs = append(vs, map[string]any{
			"name": v.name, "served": true, "storage": v.storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
				"spec": map[string]any{"type": "object", "properties": v.spec},
			}}},
		})
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": vs,
		},
	}
	if err := rc.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(crd).Do(ctx).Error(); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	t.Cleanup(func() {
		rc.Delete().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name(name).Do(context.Background())
	})
	for _, v := range versions {
		eventually(t, "CRD "+name+" served at "+v.name, func() bool {
			err := rc.Get().Group(group).Version(v.name).Namespace("default").Resource("widgets").Param("limit", "1").Do(ctx).Error()
			return err == nil
		})
	}
	return name
}

// object is a decoded JSON object.
type object = map[string]any

func decode(t *testing.T, data []byte) object {
	t.Helper()
	var o object
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return o
}

// field follows a path of keys through nested objects.
func field(o object, path ...string) any {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// widgetBody is a Widget of group/version named name with the given spec
// (JSON) and labels.
func widgetBody(group, version, name, spec string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"%s/%s","kind":"Widget","metadata":{"name":%q},"spec":%s}`, group, version, name, spec))
}

// statusMessage returns the message of a *StatusError, or err's text.
func statusMessage(err error) string {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// recorder keeps the reviews a handler receives (their bodies), then
// passes them on.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
	next   http.Handler
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.next.ServeHTTP(w, req)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.bodies = nil
	r.mu.Unlock()
}

func (r *recorder) all() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func (f *fixture) logger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
