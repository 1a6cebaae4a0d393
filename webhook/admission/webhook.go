package admission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/webhook/internal/call"
	"github.com/kubego/kubego/webhook/internal/review"
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
	body, ok := review.ReadBody(w, r, wh.log, "AdmissionReview")
	if !ok {
		return
	}
	rev, err := DecodeReview(body)
	if err != nil {
		wh.log.Warn("admission: unreadable review", "path", r.URL.Path, "err", err)
		review.WriteStatus(w, http.StatusBadRequest, err.Error())
		return
	}
	req := rev.Request
	resp := wh.handle(r.Context(), req)
	data, err := encodeResponse(string(req.UID), resp)
	if err != nil {
		wh.log.Error("admission: encoding response", "err", err)
		review.WriteStatus(w, http.StatusInternalServerError, "encoding AdmissionReview response: "+err.Error())
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
