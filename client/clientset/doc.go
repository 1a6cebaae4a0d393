// Package clientset is the typed clientset of the built-in Kubernetes API,
// in the shape client-go users know:
//
//	cs, err := clientset.NewForConfig(cfg, client.Options{})
//	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
//
// It is generated (go generate, by internal/gen/clientsetgen) from the
// registration markers of k8s.io/api, one accessor per group/version and
// resource, and holds no behaviour: every accessor returns the generic
// *client.Resource[T] of package client, so CoreV1().Pods(ns) is exactly
// client.Typed[*corev1.Pod](c).Namespace(ns). Namespaced resources take the
// namespace as an argument ("" for all namespaces); cluster-scoped ones
// take none.
//
// Group accessors are named as in client-go (CoreV1, AppsV1,
// InternalV1alpha1 for apiserverinternal.k8s.io …). Resource accessors are
// the plural of the kind (Pods, Endpoints, NetworkPolicies).
package clientset
