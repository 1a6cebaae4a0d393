// Package faults holds kubego's fault-injection suite: integration tests
// that run informers, clients, leader election and controllers against a real
// kube-apiserver (package testenv) while loopback proxies and the control
// plane inject faults — killed and restarted API servers, compaction,
// connection resets, half-open TCP, malformed or replayed watch frames,
// throttling, hung responses.
//
// The package has no non-test code. Its harness lives in _test files:
//
//   - an L4 TCP proxy (tcpproxy_test.go) that can pause, black-hole
//     (drop bytes without FIN), reset (RST) and delay connections;
//   - an L7 TLS-terminating proxy (httpproxy_test.go) that forwards to the
//     API server with the admin client certificate and can rewrite,
//     delay, drop, duplicate, truncate or corrupt responses and watch
//     frames;
//   - a writer (writer_test.go) that creates, updates and deletes
//     ConfigMaps at a steady, bounded rate and records the
//     resourceVersion of every write;
//   - one oracle (oracle_test.go) applied after every scenario;
//   - a hostile-server kit (hostile_test.go): httptest servers playing a
//     broken or hostile kube-apiserver — endless bodies, gzip bombs,
//     response headers that never come, poisoned watch events, objects of
//     foreign kinds and namespaces, echoed credentials, endless
//     Retry-After, frames that claim more than they send. Its tests
//     (hostile_scenarios_test.go) need no control plane and also run under
//     -short;
//   - a controller harness (ctl_test.go): a Manager running a "marker"
//     controller that copies each ConfigMap's data into an annotation, so
//     the API server itself shows an object the controller skipped; it
//     runs in the test process or in a child process (the test binary run
//     again, ctl_child_test.go) that can be killed with SIGKILL, and logs
//     each reconcile's start and end with a machine-wide monotonic time so
//     that reconciles of two leaders can be checked for overlap;
//   - an in-process transport (inprocess_test.go) that serves package
//     fake's http.Handler without a listener or TLS, watches streamed
//     through a pipe, for scenarios that need more requests a second than
//     a real API server takes (the hot object);
//   - the soak (soak_integration_test.go, make soak): the faults in random
//     order for an hour with a writer, an informer and a controller alive,
//     the process's heap, goroutines and sockets sampled every 10 s and
//     their growth bounded (the informers share values between cached
//     objects, as by default; KUBEGO_SOAK_SHARING=off turns that off, to
//     tell a rise of their sharing tables from other owners').
//
// Every test stops by itself within about a minute and uses loopback
// only; those that need the control plane are skipped under -short. Scenarios too slow for `make test` run only
// when KUBEGO_FAULTS=long is set. RELIABILITY.md at the repository root
// lists the scenarios and their measured results.
package faults
