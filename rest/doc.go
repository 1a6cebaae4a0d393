// Package rest is the low-level client of the Kubernetes API: it builds
// requests, negotiates the wire format, turns failures into typed errors,
// retries what is safe to retry, and decodes watch streams. The typed,
// dynamic and metadata clients are built on it.
//
// # Clients
//
// A [Config] says where the server is and who the caller is. [NewClient]
// validates it (problems come back as a [*ConfigError] naming the field) and
// returns a [Client], safe for concurrent use:
//
//	c, err := rest.NewClient(&rest.Config{
//		Host:        "https://127.0.0.1:6443",
//		TLS:         rest.TLSConfig{CAFile: "ca.crt"},
//		BearerToken: token,
//	})
//
// Clients built from Configs with equal TLS, proxy and HTTP/2 settings share
// one HTTP transport and so one connection pool. HTTP/2 is used when the
// server offers it, with health pings (Config.HealthPingInterval,
// Config.PingTimeout) so that a dead connection under a watch is noticed
// within about a minute.
//
// The shared transports live in the package's only process-wide state, a
// cache keyed by those settings (key material enters only as a hash).
// It is global on purpose: the typed, dynamic, metadata and discovery
// clients of one program talk to the same cluster, and sharing one pool lets
// them share HTTP/2 connections. Its entries are weak references: once no
// Client uses a transport, the transport is collected and its entry removed,
// so the cache never holds more than one entry per distinct setting in use.
// A fixed ProxyURL and a TLS.ClientCertificates source (by identity: the
// same *auth.Exec or *auth.CertFiles) are part of the key; a Proxy func or
// a source that cannot be compared gets a transport of its own, outside the
// cache.
//
// # Credentials
//
// A Config names at most one credential: BearerToken, BearerTokenFile (a
// projected service-account token, say: re-read every TokenFileMaxAge and
// after a 401), Username/Password, or Auth for anything else (exec plugins
// from package auth, or [BearerAuth] over a [TokenSource]). A client
// certificate (Config.TLS) may accompany any of them. Validate refuses a
// Config with two, with a [*ConfigError] wrapping [ErrConflictingAuth].
//
// # Logging
//
// Config.Logger receives warnings (server Warning headers, a token file that
// cannot be re-read). Without one they go to slog.Default(), as in every
// kubego package.
//
// Secrets stay secret: printing a Config (with any fmt verb, or through
// log/slog) redacts the bearer token, password and private key; errors never
// contain them; credentials are sent only to the configured host, and a
// redirect to another host is refused with a [*RedirectError]. Bearer tokens
// and basic auth over plain http are refused unless Config.AllowInsecureAuth
// is set.
//
// # Requests
//
// A request is built by chaining and sent with Do, DoRaw, Stream or Watch:
//
//	var pods corev1.PodList
//	err := c.Get().Namespace("default").Resource("pods").
//		Params(&metav1.ListOptions{LabelSelector: "app=web"}).
//		Do(ctx).Into(&pods)
//
// The path is /api/v1/... for the core group and /apis/<group>/<version>/...
// otherwise ([Request.Group], [Request.Version]); [Request.AbsPath] gives a
// raw path. Mistakes while building (an empty or malformed name, parameters
// that do not encode) are recorded and returned by the sending method,
// wrapping [ErrInvalidRequest]; nothing panics. So does a request started
// from a nil *Client ([ErrNilClient]), and the clients built on one
// (client, dynamic, metadata, discovery, openapi) return that error.
//
// # Wire formats
//
// Under [ContentTypeAuto] (the default) a request for a built-in
// group/version asks for protobuf with JSON as fallback, and sends create
// and update bodies in protobuf; everything else (custom resources, raw
// paths, patches) uses JSON. A group/version is built-in when
// Config.Scheme registers protobuf types for it, or, for a Config without
// a Scheme, when the request is [Request.Typed] with a built-in Go type:
// such a Config registers the meta/v1 types only and knows the kinds of
// k8s.io/api by their Go types ([Client.KindsOf]), so that a program links
// only the API groups it uses (set Config.Scheme to scheme.Default() for
// every kind). Responses are decoded by their own Content-Type, so a
// server that answers JSON is understood either way. [Result.Into] decodes
// into registered and built-in types, into Go types the scheme does not
// know (CRD types, from JSON), and into unstructured objects (from JSON,
// or from protobuf for kinds the scheme registers).
//
// # Errors
//
// Every non-2xx response becomes an *errors.StatusError of
// k8s.io/apimachinery/pkg/api/errors, decoded from the server's Status body
// or, when the body is not a Status, made from the HTTP code; so
// apierrors.IsNotFound, IsConflict, IsTooManyRequests and the rest work.
// Failures to reach the server are [*TransportError] (wrapping the cause,
// such as a context error or a [*RedirectError]); undecodable bodies are
// [*DecodeError].
//
// A Status whose code disagrees with the response (a 404 carrying code 200
// or "Success", a code of 999 or -1) takes the HTTP status as its code and
// is a Failure, and an empty message is filled in, so the error always
// means what the response did and Error() is never "". A body that is not
// a Status is quoted as a short excerpt of one line of text, never as
// binary bytes.
//
// Warning headers go to Config.WarningHandler; by default each distinct
// message is logged once.
//
// # A hostile or broken server
//
// The client never trusts the server with its memory, its time or its
// secrets:
//
//   - a body read whole (Do, DoRaw) is bounded by Config.Limits.MaxResponseBytes
//     and a gzip body by Config.Limits.MaxGzipRatio (the client asks for gzip
//     itself and decompresses as it reads); a watch event by
//     Config.Limits.MaxFrameBytes, its memory growing only as its bytes arrive.
//     Each is a [*LimitError] naming the Config field. A body read whole
//     is held in chunks that are never reallocated (or in one buffer sized
//     by its Content-Length), so a body that never ends costs about
//     MaxResponseBytes before it is refused, not a multiple of it. The
//     default, 512 MiB, is several times the largest LIST page a cluster
//     gives in practice: 100,000 Pods in one page, unpaginated, are a few
//     hundred MiB in JSON and less in protobuf (the informers list in
//     pages of 500);
//   - a body whose request's context ends while it is read is an error
//     wrapping the context's, never a success with what came;
//   - every request, watches included, waits at most
//     Config.Limits.ResponseHeaderTimeout for response headers (two minutes
//     unless set), so a request without a deadline cannot wait forever for
//     a server that never answers; a body read whole (and an error body)
//     fails once a window of Config.Limits.ResponseBodyProgressTimeout (one
//     minute unless set) brings less than 64 KiB and not its end, so one
//     that stalls or trickles after its headers cannot either;
//   - a Client, a Request, a Result and a WatchStream print none of the
//     credentials they hold (with fmt, log/slog or encoding/json), nor does
//     a Config (its String, Format, LogValue and MarshalJSON redact);
//   - credentials the client holds or sent (its bearer token or password,
//     and the Authorization header of each attempt, which covers token
//     files and exec plugins) are replaced by "<redacted>" in error
//     messages, Warning headers and watch ERROR events before they reach
//     an error, a WarningHandler or a log;
//   - an ADDED, MODIFIED or DELETED watch event whose object has no name
//     (null or {}) ends the watch with a [*DecodeError] wrapping
//     [ErrInvalidObject].
//
// # Retries and throttling
//
// A 429 is retried whenever the request can be sent again (it was not
// processed), and a 5xx with Retry-After for GET, HEAD and watch requests,
// waiting as Retry-After asks (capped by Config.Limits.MaxRetryAfter; a date
// waits at least a second, so a stale one is no invitation to retry back
// to back) up to
// Config.MaxRetries times and at most Config.Limits.MaxRetryWait in all (one
// minute unless set); the wait ends early with the context.
//
// There is no client-side throttling unless Config.RateLimiter is set, by
// design: kube-apiserver's API Priority and Fairness classifies each
// request by FlowSchema into a priority level, shares the server's
// capacity between levels and, within a level, between flows (users,
// namespaces) fairly, and answers 429 with Retry-After when a level's
// queues are full — the retries above honour it. A fixed client-side rate
// would only second-guess the server. A client that must stay under a rate
// whatever the server accepts (a batch job sharing a priority level with
// controllers) sets a [TokenBucket]. [Result.FlowControl] tells which
// FlowSchema and priority level the server put a request in (UIDs, from
// the X-Kubernetes-PF-* headers; [FlowControlOf] reads them from any
// response), and each retry after a 429 is logged at debug level with
// them.
//
// # Watches
//
// [Request.Watch] returns a [*WatchStream], a watch.Interface of
// k8s.io/apimachinery. Events arrive in server order; the channel closes when
// the stream ends and [WatchStream.Err] tells why: nil after Stop or a clean
// end, the context's error, an *errors.StatusError after an ERROR event (which
// is also delivered as a watch.Error event), or a [*DecodeError] for a
// malformed, oversized (Config.Limits.MaxFrameBytes) or unknown event. An event is
// delivered whole or not at all. Stop is idempotent and releases the
// connection.
package rest
