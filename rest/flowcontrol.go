package rest

import "net/http"

// The response headers by which kube-apiserver's API Priority and Fairness
// names how it classified a request.
const (
	HeaderFlowSchemaUID    = "X-Kubernetes-PF-FlowSchema-UID"
	HeaderPriorityLevelUID = "X-Kubernetes-PF-PriorityLevel-UID"
)

// FlowControl is what API Priority and Fairness said about one response:
// the UIDs of the FlowSchema that matched the request and of the
// PriorityLevelConfiguration it was queued in (look them up in
// flowcontrol.apiserver.k8s.io to learn their names and shares). Both are
// empty when the server sent none (API Priority and Fairness off, or an
// answer from something other than kube-apiserver).
type FlowControl struct {
	FlowSchemaUID    string
	PriorityLevelUID string
}

// FlowControlOf reads the API Priority and Fairness headers of a
// response. A RoundTripper around the client's (Config.WrapTransport) can
// use it to count responses by priority level.
func FlowControlOf(h http.Header) FlowControl {
	return FlowControl{FlowSchemaUID: h.Get(HeaderFlowSchemaUID), PriorityLevelUID: h.Get(HeaderPriorityLevelUID)}
}
