package leaderelection

import "k8s.io/apimachinery/pkg/types"

// Metrics receives the leader status of an elector, typically to set a
// gauge to 1 or 0 (the controller manager's leader status metric).
//
// SetLeading is called with false when Run starts, with true when a term
// begins and with false when it ends, from the
// election goroutine or from the timer that ends a term at its deadline;
// implementations must be safe for concurrent use, fast and non-blocking.
type Metrics interface {
	SetLeading(lease types.NamespacedName, leading bool)
}
