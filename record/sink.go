package record

import (
	"context"
	"encoding/json"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
)

// Sink writes Events. NewSink returns the one backed by the API server;
// tests use an in-memory one.
//
// Errors must be recognisable by k8s.io/apimachinery/pkg/api/errors:
// IsAlreadyExists when Create finds the name taken (the recorder then takes
// an earlier attempt as successful), IsNotFound when UpdateSeries finds no
// such Event (the recorder then creates a new one carrying the series).
// Status errors for 429, 5xx and timeouts, and non-status errors, are
// retried; other status errors are not. Calls must return once ctx is done.
//
// Implementations must be safe for concurrent use, and must not keep or
// modify the Event passed in.
type Sink interface {
	// Create stores ev in its namespace.
	Create(ctx context.Context, ev *eventsv1.Event) error
	// UpdateSeries sets the series of the Event namespace/name.
	UpdateSeries(ctx context.Context, namespace, name string, series eventsv1.EventSeries) error
}

// NewSink returns the Sink that writes events.k8s.io/v1 Events through c:
// Create is a POST, UpdateSeries a JSON merge patch of the series.
func NewSink(c *client.Client) Sink {
	return clientSink{r: client.Typed[*eventsv1.Event](c).DiscardResults()}
}

type clientSink struct {
	r *client.Resource[*eventsv1.Event]
}

func (s clientSink) Create(ctx context.Context, ev *eventsv1.Event) error {
	_, err := s.r.Namespace(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	return err
}

func (s clientSink) UpdateSeries(ctx context.Context, namespace, name string, series eventsv1.EventSeries) error {
	patch, err := json.Marshal(map[string]any{"series": series})
	if err != nil {
		return err
	}
	_, err = s.r.Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
