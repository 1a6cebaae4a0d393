package conversion

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kinded is an object whose apiVersion and kind can be read and set (a
// struct embedding metav1.TypeMeta, through its pointer).
type kinded interface {
	GetObjectKind() schema.ObjectKind
}

// Register registers f, converting a *From of apiVersion from into a *To
// of apiVersion to, on wh. The Webhook decodes the object into a new From
// (JSON), calls f with a new To, sets To's apiVersion to to and its kind to
// the object's, and encodes it. f copies the rest, metadata included.
//
//	conversion.Register(wh, "example.com/v1", "example.com/v2",
//		func(ctx context.Context, in *v1.Widget, out *v2.Widget) error { ... })
func Register[From, To any, PF interface {
	*From
	kinded
}, PT interface {
	*To
	kinded
}](wh *Webhook, from, to string, f func(ctx context.Context, in PF, out PT) error) {
	gv, gvErr := schema.ParseGroupVersion(to)
	wh.RegisterFunc(from, to, func(ctx context.Context, obj []byte, toAPIVersion string) ([]byte, error) {
		if gvErr != nil {
			return nil, fmt.Errorf("target apiVersion %q: %w", to, gvErr)
		}
		in := PF(new(From))
		if err := json.Unmarshal(obj, in); err != nil {
			return nil, fmt.Errorf("decoding %T: %w", in, err)
		}
		kind := in.GetObjectKind().GroupVersionKind().Kind
		out := PT(new(To))
		if err := f(ctx, in, out); err != nil {
			return nil, err
		}
		out.GetObjectKind().SetGroupVersionKind(gv.WithKind(kind))
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding %T: %w", out, err)
		}
		return data, nil
	})
}
