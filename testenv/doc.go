// Package testenv runs a real, throw-away Kubernetes control plane — etcd and
// kube-apiserver — on loopback, for integration tests, the demo and
// `kubego dev`.
//
// # Binaries
//
// kube-apiserver and etcd are Go programs. The first Start builds them with the
// local Go toolchain from the versions pinned in hack/controlplane (a separate
// module, embedded here as pins/), into a per-user cache directory
// (os.UserCacheDir()/kubego/controlplane/<pin hash>/). Later starts reuse them;
// a change of the pins changes the hash and so triggers a rebuild. A file lock
// makes concurrent test processes wait for one build instead of racing. The
// first build takes several minutes on a small machine; later starts take
// seconds. Set KUBEGO_CONTROLPLANE_BIN to a directory holding prebuilt
// kube-apiserver and etcd binaries to skip building.
//
// # Versions
//
// The default kube-apiserver is DefaultVersion, the release the library's
// API types come from. Options.Version (or the KUBEGO_APISERVER_VERSION
// environment variable, which also reaches every testenv.Shared control
// plane of a test run) picks an older minor version among Versions(): each
// is pinned in hack/controlplane/v<minor> with the Kubernetes release's own
// dependencies, built once into its own cache directory, and run with the
// default etcd. `make compat` runs the real-server tests against each.
//
// # Processes
//
// Start picks free loopback ports, generates a CA, a serving certificate, an
// admin client certificate (O=system:masters) and service-account keys in a
// temporary directory, starts etcd and then kube-apiserver, and waits for
// /readyz. Both processes run in their own process group with a parent-death
// signal, so an interrupted or killed test binary leaves no orphans. Stop
// terminates them (a short grace period, then SIGKILL) and removes the
// temporary directory. When start fails, the error carries the tail of the
// processes' output.
//
// # In tests
//
// One control plane per test package is the norm:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		cp := testenv.Shared(t) // started on first use, skipped under -short
//		cfg := cp.Config()      // admin *rest.Config
//		...
//	}
//
// Tests that need a control plane of their own (extra flags, restarts,
// faults) call StartForTest, which stops it in t.Cleanup.
//
// # Custom resources
//
// InstallCRDs installs CustomResourceDefinitions from YAML or JSON files
// and directories, InstallCRDObjects from Go values, and Options.CRDPaths
// has Start install them; each returns once the definitions are
// Established and their resources answer (package crd does the work, for
// programs too). Definitions installed on the shared control plane stay
// for the rest of the package's tests.
//
// # Webhooks
//
// kube-apiserver can call webhooks served by the test process on loopback
// (a webhook.Server on 127.0.0.1 with a certificate from package certs).
// InstallWebhooks registers validating and mutating webhooks at a server's
// URL with its CA bundle, InstallConversionWebhook points a CRD's
// conversion at one; InstallWebhookConfigurations installs what a
// webhookconfig.Set made (with a URL target), so a program's webhooks are
// registered once, in Go, for its cluster and its tests. kube-apiserver
// starts calling them within about a second, so tests retry until they
// see the effect.
package testenv
