package conversion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/webhook/internal/call"
	"github.com/kubego/kubego/webhook/internal/review"
)

// Options configure a Webhook. The zero value converts only by direct
// functions.
type Options struct {
	// Hub is the apiVersion ("example.com/v2") objects are converted
	// through when no function converts directly: from the object's
	// apiVersion to Hub, then from Hub to the desired one.
	Hub string
	// Logger receives panics (Error) and failed conversions (Warn); nil
	// sends them to slog.Default() (internal/defaultlog).
	Logger *slog.Logger
}

// Func converts one object, given as JSON, to toAPIVersion and returns
// its JSON.
type Func func(ctx context.Context, obj []byte, toAPIVersion string) ([]byte, error)

type pair struct{ from, to string }

// Webhook converts objects of one kind between apiVersions and serves
// ConversionReviews. Register functions before it serves; Register and
// ServeHTTP are nonetheless safe for concurrent use.
type Webhook struct {
	hub string
	log *slog.Logger

	mu    sync.RWMutex
	funcs map[pair]Func
}

// New returns a Webhook with no functions.
func New(opts Options) *Webhook {
	return &Webhook{hub: opts.Hub, log: defaultlog.Or(opts.Logger), funcs: map[pair]Func{}}
}

// RegisterFunc registers f for objects of apiVersion from converted to
// apiVersion to, replacing an earlier one. f must set apiVersion.
func (wh *Webhook) RegisterFunc(from, to string, f Func) {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	wh.funcs[pair{from, to}] = f
}

func (wh *Webhook) lookup(from, to string) Func {
	wh.mu.RLock()
	defer wh.mu.RUnlock()
	return wh.funcs[pair{from, to}]
}

// typeHeader reads the apiVersion and kind of an object.
type typeHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
}

// Convert converts one object to the desired apiVersion: unchanged when
// it is already there, else by the direct function or through the hub.
// Errors wrap ErrNoConversion when no path exists.
func (wh *Webhook) Convert(ctx context.Context, obj []byte, desired string) ([]byte, error) {
	var h typeHeader
	if err := json.Unmarshal(obj, &h); err != nil {
		return nil, fmt.Errorf("reading apiVersion: %w", err)
	}
	if h.APIVersion == desired {
		return obj, nil
	}
	if f := wh.lookup(h.APIVersion, desired); f != nil {
		return f(ctx, obj, desired)
	}
	if wh.hub != "" && h.APIVersion != wh.hub && desired != wh.hub {
		toHub, fromHub := wh.lookup(h.APIVersion, wh.hub), wh.lookup(wh.hub, desired)
		if toHub != nil && fromHub != nil {
			mid, err := toHub(ctx, obj, wh.hub)
			if err != nil {
				return nil, err
			}
			return fromHub(ctx, mid, desired)
		}
	}
	return nil, fmt.Errorf("%w from %s to %s", ErrNoConversion, h.APIVersion, desired)
}

// ServeHTTP handles one ConversionReview. See the package documentation
// for what each failure is answered with.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := review.ReadBody(w, r, wh.log, "ConversionReview")
	if !ok {
		return
	}
	rev, err := DecodeReview(body)
	if err != nil {
		wh.log.Warn("conversion: unreadable review", "path", r.URL.Path, "err", err)
		review.WriteStatus(w, http.StatusBadRequest, err.Error())
		return
	}
	resp := wh.review(r.Context(), rev.Request)
	out := Review{TypeMeta: rev.TypeMeta, Response: resp}
	data, err := json.Marshal(&out)
	if err != nil {
		review.WriteStatus(w, http.StatusInternalServerError, "encoding ConversionReview response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// review converts every object of req, or none.
func (wh *Webhook) review(ctx context.Context, req *Request) *Response {
	resp := &Response{UID: req.UID}
	type result struct {
		objs []json.RawMessage
		err  error
	}
	res, err := call.Run(ctx, func(ctx context.Context) result {
		objs := make([]json.RawMessage, 0, len(req.Objects))
		for i, obj := range req.Objects {
			out, err := wh.Convert(ctx, obj, req.DesiredAPIVersion)
			if err != nil {
				return result{err: fmt.Errorf("converting object %d%s to %s: %w", i, describe(obj), req.DesiredAPIVersion, err)}
			}
			objs = append(objs, out)
		}
		return result{objs: objs}
	})
	var pe *call.PanicError
	switch {
	case errors.As(err, &pe):
		wh.log.Error("conversion: function panicked", "uid", req.UID, "panic", pe.Value, "stack", string(pe.Stack))
		resp.Result = failure(http.StatusInternalServerError, fmt.Sprintf("conversion to %s panicked: %v", req.DesiredAPIVersion, pe.Value))
	case err != nil:
		resp.Result = failure(http.StatusGatewayTimeout, fmt.Sprintf("conversion to %s did not finish in time: %v", req.DesiredAPIVersion, err))
	case res.err != nil:
		wh.log.Warn("conversion: failed", "uid", req.UID, "err", res.err)
		resp.Result = failure(http.StatusInternalServerError, res.err.Error())
	default:
		resp.ConvertedObjects = res.objs
		resp.Result = metav1.Status{Status: metav1.StatusSuccess}
	}
	return resp
}

// describe names an object for a message: " (namespace/name, apiVersion)".
func describe(obj []byte) string {
	var h typeHeader
	if json.Unmarshal(obj, &h) != nil {
		return ""
	}
	name := h.Metadata.Name
	if h.Metadata.Namespace != "" {
		name = h.Metadata.Namespace + "/" + name
	}
	return fmt.Sprintf(" (%s %s)", name, schema.FromAPIVersionAndKind(h.APIVersion, h.Kind).GroupVersion())
}

func failure(code int32, message string) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: code, Message: message}
}
