package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/webhook/internal/call"
)

// Options configure a Webhook. The zero value is ready to use.
type Options struct {
	// Logger receives handler panics (Error) and unreadable reviews
	// (Warn); nil sends them to slog.Default() (internal/defaultlog).
	Logger *slog.Logger
}

// Webhook serves one Handler as an http.Handler: it reads the
// AdmissionReview, calls the handler and writes the review back. It is
// safe for concurrent use.
type Webhook struct {
	h   Handler
	log *slog.Logger
}

// New returns a Webhook serving h.
func New(h Handler, opts Options) *Webhook {
	return &Webhook{h: h, log: defaultlog.Or(opts.Logger)}
}

// ServeHTTP handles one AdmissionReview. See the package documentation for
// what each failure is answered with.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeStatus(w, http.StatusMethodNotAllowed, "admission webhooks take POST")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			wh.log.Warn("admission: review body over the limit", "path", r.URL.Path, "limit", tooLarge.Limit)
			writeStatus(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("AdmissionReview body exceeds the webhook server's limit of %d bytes", tooLarge.Limit))
			return
		}
		writeStatus(w, http.StatusBadRequest, "reading AdmissionReview: "+err.Error())
		return
	}
	rev, err := DecodeReview(body)
	if err != nil {
		wh.log.Warn("admission: unreadable review", "path", r.URL.Path, "err", err)
		writeStatus(w, http.StatusBadRequest, err.Error())
		return
	}
	req := rev.Request
	resp := wh.handle(r.Context(), req)
	data, err := encodeResponse(string(req.UID), resp)
	if err != nil {
		wh.log.Error("admission: encoding response", "err", err)
		writeStatus(w, http.StatusInternalServerError, "encoding AdmissionReview response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// handle runs the handler under call.Run, turning its panic or lateness
// into a denial.
func (wh *Webhook) handle(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	ctx = withRequest(ctx, req)
	resp, err := call.Run(ctx, func(ctx context.Context) *admissionv1.AdmissionResponse { return wh.h.Handle(ctx, req) })
	var pe *call.PanicError
	switch {
	case errors.As(err, &pe):
		wh.log.Error("admission: handler panicked", "kind", req.Kind.String(), "name", req.Name, "namespace", req.Namespace, "panic", pe.Value, "stack", string(pe.Stack))
		return Errored(http.StatusInternalServerError, fmt.Errorf("admission webhook handler panicked: %v", pe.Value))
	case err != nil:
		return Errored(http.StatusGatewayTimeout, fmt.Errorf("admission webhook handler did not answer in time: %w", err))
	case resp == nil:
		return Errored(http.StatusInternalServerError, errors.New("admission webhook handler returned no response"))
	}
	return resp
}

// writeStatus answers with an HTTP error and a metav1.Status body, which
// kube-apiserver shows in its error.
func writeStatus(w http.ResponseWriter, code int, message string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reasonFor(int32(code)), Message: message,
	}
	data, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data)
}
