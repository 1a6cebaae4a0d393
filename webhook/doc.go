// Package webhook is the HTTPS server of admission and conversion webhooks
// (kube-apiserver calls them): Server serves handlers from
// webhook/admission and webhook/conversion, standalone or as a
// manager.Runnable, and package certs makes certificates for development
// and tests. Package webhookconfig is its cluster side: configurations
// made from the registered handlers, serving certificates without
// cert-manager, and the caBundles kept up to date.
//
//	srv, err := webhook.New(webhook.Options{CertFile: "/certs/tls.crt", KeyFile: "/certs/tls.key"})
//	...
//	srv.Handle("/validate-widgets", admission.New(admission.Validating[Widget](v, admission.TypedOptions{}), admission.Options{}))
//	srv.Handle("/convert-widgets", conv) // a *conversion.Webhook
//	mgr.Add(srv)                          // or srv.Start(ctx)
//	mgr.AddReadyzCheck("webhook", srv.ReadyCheck)
//
// # Serving
//
// The server speaks HTTPS only (TLS 1.2 or newer, HTTP/2 and HTTP/1.1).
// Its certificate comes from Options.GetCertificate — in a cluster,
// webhookconfig.Certificates, which signs it with a CA kept in a Secret and
// rotates it in memory — or from files (cert-manager's, or certs.Write's).
// Files are checked at every TLS handshake: when either file changed, the pair is reloaded, so new
// connections get the new certificate without a restart (connections
// already open keep theirs). A pair that does not load — a file missing or
// half-written during a rotation, a key that does not match — leaves the
// previous pair in service and is logged once; the next handshake tries
// again. certs.Write replaces its files atomically.
//
// Each request's body is limited (Options.MaxBodyBytes) and its context
// ends after Options.RequestTimeout (the cause is ErrRequestTimeout). A
// panic in a handler is recovered: the admission and conversion handlers
// answer with a review carrying the message (code 500), any other handler
// with an HTTP 500. When Start's context ends, the server stops accepting
// connections and lets requests in flight finish (Options.ShutdownTimeout).
//
// ReadyCheck fails until the server listens, and when its certificate
// expired. The server does not need leader election: every replica
// serves.
//
// # What kube-apiserver does with faults
//
// The webhook configuration's failurePolicy decides what a failed call
// means: Fail refuses the client's request, Ignore admits it as if the
// webhook were not there. A call fails when the server is unreachable
// (stopped: "connection refused"), when it does not answer within the
// configuration's timeoutSeconds ("context deadline exceeded"), and when
// it answers with an HTTP error (an unreadable or oversized review, whose
// message is shown). A review the handler answered — including the 500 of
// a recovered panic — is a denial with the handler's message, whatever
// the failurePolicy.
package webhook
