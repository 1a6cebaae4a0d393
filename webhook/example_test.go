package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

// A webhook server on loopback with a development certificate, serving
// one admission webhook; a manager would run it with mgr.Add(srv).
func Example() {
	dir, _ := os.MkdirTemp("", "webhook")
	defer os.RemoveAll(dir)
	ca, _ := certs.NewCA(certs.CAOptions{})
	pair, _ := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	files, _ := certs.Write(dir, pair)

	srv, err := webhook.New(webhook.Options{
		Addr:     "127.0.0.1:0",
		CertFile: files.CertFile, KeyFile: files.KeyFile,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	srv.Handle("/validate", admission.New(admission.HandlerFunc(
		func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return admission.Denied("no " + req.Name + " today")
		}), admission.Options{}))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Start(ctx) }()
	<-srv.Serving()

	// What kube-apiserver does, trusting the CA (the caBundle).
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Post("https://"+srv.Addr().String()+"/validate", "application/json", strings.NewReader(
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"42","name":"pets","operation":"CREATE"}}`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))

	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"42","allowed":false,"status":{"metadata":{},"status":"Failure","message":"no pets today","reason":"Forbidden","code":403}}}
	// stopped: <nil>
}
