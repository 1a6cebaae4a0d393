// Package kubeletstub is a stand-in kubelet for tests: an HTTPS server on
// loopback that serves the kubelet's streaming endpoints (exec, attach,
// port-forward) the way a kubelet does, so that kube-apiserver can be
// tested forwarding them.
//
// Wiring, in order:
//
//  1. NewAuthority makes the CA that signs the stand-in's serving
//     certificate; its CertPEM goes in testenv.Options.KubeletCA, which
//     makes kube-apiserver trust it and reach Nodes by their InternalIP.
//  2. Start serves on 127.0.0.1 on a free port.
//  3. RegisterNode creates a Node whose InternalIP is 127.0.0.1 and whose
//     status.daemonEndpoints.kubeletEndpoint.port is the stand-in's port.
//     The Node declares the ExtendWebSocketsToKubelet feature, as kubelets
//     of 1.36 and later do, so kube-apiserver hands WebSocket streams to
//     it unchanged; with Options.Translated it does not, and
//     kube-apiserver translates v5 exec and attach and tunnelled
//     port-forward to SPDY, as for older kubelets. The stand-in serves
//     WebSocket (v5, v4) and SPDY on every endpoint.
//  4. CreatePod creates Pods bound to that Node.
//
// Exec and attach run in-process: Options.Run is called with the streams
// of each session (Builtins, the default, knows a few commands). A
// container's log is what SetLog and AppendLog wrote (empty otherwise),
// served with follow, tailLines and limitBytes. Port
// forwarding connects to the port on 127.0.0.1: the Pods of the stand-in
// share the host's loopback.
//
// In tests, Main (from TestMain) and Shared do all of this once per test
// binary; StartForTest starts another stand-in with options of its own.
//
// The stand-in does not authenticate kube-apiserver; it is a test fixture
// for loopback only.
package kubeletstub
