package fake

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// maxWebhookResponse bounds the body of a webhook's answer.
const maxWebhookResponse = 3 << 20

// ErrWebhookUnreachable is wrapped by the error of a call to a webhook the
// fake cannot reach: a service reference (the fake has no cluster network)
// or a URL that is not https, neither mapped in Options.Webhooks.
var ErrWebhookUnreachable = errors.New("fake: webhook unreachable")

// ServiceWebhookURL is the key in Options.Webhooks of a webhook
// configuration's service reference: https://<name>.<namespace>.svc:<port><path>,
// the port 443 when the reference names none.
func ServiceWebhookURL(ref admissionregistrationv1.ServiceReference) string {
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	path := ""
	if ref.Path != nil {
		path = *ref.Path
	}
	return "https://" + ref.Name + "." + ref.Namespace + ".svc:" + strconv.Itoa(int(port)) + path
}

// post sends body to the webhook cc names and returns the answer's body:
// through the in-process handler Options.Webhooks maps its URL to, else
// over HTTPS to its URL, trusting its caBundle (the system roots when it
// has none), as kube-apiserver does. Like kube-apiserver, the request's
// URL carries the call's timeout as the query parameter timeout.
func (s *Server) post(ctx context.Context, cc admissionregistrationv1.WebhookClientConfig, body []byte, timeout time.Duration) ([]byte, error) {
	target := ""
	switch {
	case cc.URL != nil:
		target = *cc.URL
	case cc.Service != nil:
		target = ServiceWebhookURL(*cc.Service)
	default:
		return nil, fmt.Errorf("%w: the clientConfig has neither url nor service", ErrWebhookUnreachable)
	}
	if h := s.opts.Webhooks[target]; h != nil {
		return callInProcess(ctx, h, withTimeout(target, timeout), body)
	}
	if cc.URL == nil {
		return nil, fmt.Errorf("%w: service %s/%s is not mapped in Options.Webhooks (the fake has no cluster network)", ErrWebhookUnreachable, cc.Service.Namespace, cc.Service.Name)
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" {
		return nil, fmt.Errorf("%w: %q is not an https URL and is not mapped in Options.Webhooks", ErrWebhookUnreachable, target)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cc.CABundle) > 0 {
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(cc.CABundle) {
			return nil, errors.New("the caBundle holds no PEM certificate")
		}
	}
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, withTimeout(target, timeout), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("failed to call webhook: %w", err)
	}
	defer resp.Body.Close()
	return readWebhookAnswer(resp.StatusCode, resp.Body)
}

// callInProcess serves the request with h in a goroutine of its own, so
// that a handler ignoring its context cannot hold the write past the
// webhook's timeout. A panic in h is a failed call.
func callInProcess(ctx context.Context, h http.Handler, target string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.RemoteAddr = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("the in-process webhook handler panicked: %v", p)
			}
		}()
		h.ServeHTTP(rec, req)
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("failed to call webhook: Post %q: %w", target, ctx.Err())
	}
	res := rec.Result()
	defer res.Body.Close()
	return readWebhookAnswer(res.StatusCode, res.Body)
}

func readWebhookAnswer(code int, body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxWebhookResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading the webhook's response: %w", err)
	}
	if len(data) > maxWebhookResponse {
		return nil, fmt.Errorf("the webhook's response is larger than %d bytes", maxWebhookResponse)
	}
	if code < 200 || code > 299 {
		msg := data
		if len(msg) > 512 {
			msg = msg[:512]
		}
		return nil, fmt.Errorf("the webhook answered HTTP %d: %s", code, bytes.TrimSpace(msg))
	}
	return data, nil
}

// withTimeout adds the query parameter timeout to the webhook URL target.
func withTimeout(target string, d time.Duration) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	q.Set("timeout", d.String())
	u.RawQuery = q.Encode()
	return u.String()
}
