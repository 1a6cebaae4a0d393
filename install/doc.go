// Package install turns what an operator's program knows about itself
// into its installation, so that the operator's binary is its only
// artifact: no hand-written YAML, no kustomize overlays.
//
// An [Operator] holds the installation's parts as Go values — the CRDs
// built from the program's Go types (crd.Build), the RBAC rules its
// Manager needs, its webhook configurations — plus how it runs (image,
// arguments, ports, replicas). [Operator.Objects] renders the complete
// installation: a Namespace (labelled to enforce the restricted Pod
// Security Standard), the CRDs, a ServiceAccount, a ClusterRole and Roles
// with their bindings, the webhook and metrics Services, the webhook
// configurations and a Deployment whose Pod meets the restricted standard,
// with liveness and readiness probes on the Manager's /healthz and
// /readyz.
//
// [Command] gives the program three subcommands:
//
//	if handled, err := install.Command(ctx, os.Args[1:], op, os.Stdout); handled {
//		// manifests | install | uninstall ran; err is its outcome
//	}
//
// `manifests` prints YAML for `kubectl apply --server-side -f -`;
// `install` applies it ([Install]: server-side apply, idempotent: a second
// install changes nothing); `uninstall` ([Uninstall]) removes what install
// added and nothing else. Install records every object before it creates
// it in an inventory ConfigMap (<name>-install in the operator's
// namespace), so uninstall also cleans up after an install that failed
// half way, and leaves a Namespace that existed before.
package install
