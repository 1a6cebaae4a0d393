package proxy_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/proxy"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv/kubeletstub"
)

func TestMain(m *testing.M) { kubeletstub.Main(m) }

// backend serves on a non-loopback address of this host (kube-apiserver
// refuses to proxy to loopback) and returns that address.
func backend(t *testing.T) (net.IP, int) {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var ip net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() && !n.IP.IsLoopback() {
			ip = n.IP.To4()
			break
		}
	}
	if ip == nil {
		t.Skip("no non-loopback IPv4 address on this host: kube-apiserver proxies to no other")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Query().Get("who"))
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		// HTTP/1.1 handlers read the whole body before they answer.
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
		_, _ = w.Write(b)
	})
	mux.HandleFunc("GET /fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the backend broke", http.StatusInternalServerError)
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ip, ln.Addr().(*net.TCPAddr).Port
}

func setup(t *testing.T) (*rest.Client, net.IP, int, string) {
	t.Helper()
	cp, k := kubeletstub.Shared(t)
	c, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	ip, port := backend(t)
	name := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.Trim(name, "-")
	if _, err := k.CreatePod(t.Context(), c, "default", name, ip.String()); err != nil {
		t.Fatal(err)
	}
	return c, ip, port, name
}

func readAll(t *testing.T, rc io.ReadCloser, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPodProxyGetPostAndBackendErrors(t *testing.T) {
	c, _, port, pod := setup(t)
	target := proxy.Pod("default", pod, fmt.Sprint(port))

	rc, err := proxy.Do(t.Context(), c, target, proxy.Call{Path: "/hello", Query: map[string][]string{"who": {"kubego"}}})
	if got := readAll(t, rc, err); got != "hello kubego" {
		t.Fatalf("GET = %q", got)
	}

	// A large body streams through both ways.
	body := bytes.Repeat([]byte("stream me "), 800_000)
	pr, pw := io.Pipe()
	go func() {
		for chunk := range slices.Chunk(body, 64<<10) {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		_ = pw.Close()
	}()
	rc, err = proxy.Post(t.Context(), c, target, "/echo", "application/octet-stream", pr)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(h, rc)
	_ = rc.Close()
	if err != nil || n != int64(len(body)) || !bytes.Equal(h.Sum(nil), sha256Sum(body)) {
		t.Fatalf("POST echo: %d bytes, %v; want the %d sent", n, err, len(body))
	}

	_, err = proxy.Get(t.Context(), c, target, "/fail")
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.Status().Code != http.StatusInternalServerError || !strings.Contains(err.Error(), "the backend broke") {
		t.Fatalf("GET /fail = %v, want a 500 carrying the backend's text", err)
	}
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

func TestServiceProxyReachesAReadyEndpoint(t *testing.T) {
	c, ip, port, pod := setup(t)
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromInt32(int32(port)), Protocol: corev1.ProtocolTCP,
		}}},
	}
	if err := c.Post().Namespace("default").Resource("services").Body(svc).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	ready := true
	slice := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{Kind: "EndpointSlice", APIVersion: "discovery.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod + "-1", Labels: map[string]string{
			discoveryv1.LabelServiceName: pod,
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{ip.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod},
		}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(port)), Protocol: ptr(corev1.ProtocolTCP)}},
	}
	if err := c.Post().Group("discovery.k8s.io").Version("v1").Namespace("default").Resource("endpointslices").Body(slice).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	// kube-apiserver before 1.37 resolves a Service through its Endpoints
	// object, which in a cluster kube-controller-manager keeps; here there
	// is none, so write it too.
	eps := &corev1.Endpoints{
		TypeMeta:   metav1.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: ip.String(), TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod}}},
			Ports:     []corev1.EndpointPort{{Name: "http", Port: int32(port), Protocol: corev1.ProtocolTCP}},
		}},
	}
	if err := c.Post().Namespace("default").Resource("endpoints").Body(eps).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	target := proxy.Service("default", pod, "http")
	// kube-apiserver learns of the EndpointSlice through its informer.
	kubegotest.Eventually(t.Context(), t, func(ctx context.Context) error {
		rc, err := proxy.Do(ctx, c, target, proxy.Call{Path: "/hello", Query: map[string][]string{"who": {"svc"}}})
		if err != nil {
			return err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return err
		}
		if string(b) != "hello svc" {
			return fmt.Errorf("got %q", b)
		}
		return nil
	})
}

func TestAServiceWithoutEndpointsIsUnavailable(t *testing.T) {
	c, err := rest.NewClient(func() *rest.Config { cp, _ := kubeletstub.Shared(t); return cp.Config() }())
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "no-endpoints"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	if err := c.Post().Namespace("default").Resource("services").Body(svc).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	// The Endpoints object kube-controller-manager would keep (empty), for
	// kube-apiservers before 1.37.
	eps := &corev1.Endpoints{TypeMeta: metav1.TypeMeta{Kind: "Endpoints", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "no-endpoints"}}
	if err := c.Post().Namespace("default").Resource("endpoints").Body(eps).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	_, err = proxy.Get(t.Context(), c, proxy.Service("default", "no-endpoints", "http"), "/")
	if !apierrors.IsServiceUnavailable(err) {
		t.Fatalf("err = %v, want 503", err)
	}
}

func ptr[T any](v T) *T { return &v }
