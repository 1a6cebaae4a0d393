// Package authfilter lets only the callers the API server vouches for reach
// an HTTP handler: the caller's bearer token is checked with a TokenReview,
// and the request (verb and path, as a non-resource request) with a
// SubjectAccessReview for the user the token belongs to. This is how
// kube-apiserver delegates authentication and authorization to the cluster,
// and how operators protect /metrics and /debug/pprof in real clusters:
// Prometheus scrapes with its service account token, and RBAC grants it
//
//	rules:
//	- nonResourceURLs: ["/metrics"]
//	  verbs: ["get"]
//
// The filter's own client needs create on tokenreviews
// (authentication.k8s.io) and subjectaccessreviews (authorization.k8s.io),
// which the built-in ClusterRole system:auth-delegator grants.
//
// Answers: no bearer token or one the server does not authenticate gets
// 401; a user RBAC does not allow gets 403 with the reason; a review that
// cannot be made (the API server unreachable) gets 503, and the error is
// logged, never sent. Decisions are cached briefly (Options.AllowTTL,
// Options.DenyTTL) under a SHA-256 of the token, so a scrape every few
// seconds costs the API server nothing most of the time; a token is never
// logged or kept in memory in the clear. Client certificates are not
// checked: serve the filter over TLS and authenticate with tokens.
package authfilter
